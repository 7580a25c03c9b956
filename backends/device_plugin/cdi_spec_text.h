// A CDI spec as the text a runtime reads from /etc/cdi or /var/run/cdi: written as JSON or YAML
// in a fixed order, and read back (either format) with limits, for tests and the file writer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "backends/device_plugin/cdi_spec.h"

namespace slicelab::device_plugin {

enum class CdiFormat { kJson, kYaml };

// A spec file larger than this is refused unread (a node's spec is a few KiB per GPU).
inline constexpr uint64_t kMaxCdiSpecBytes = uint64_t{4} << 20;

// The spec's fields in the order of specs-go/config.go, empty optional fields left out, two
// spaces of indentation, a final newline. YAML starts with "---" as the CDI library writes it
// and quotes every string, so that a device named "0" stays a string.
std::string cdi_spec_to_json(const CdiSpec& spec);
std::string cdi_spec_to_yaml(const CdiSpec& spec);
std::string cdi_spec_text(const CdiSpec& spec, CdiFormat format);

// Reads JSON (the first non-blank character is '{') or YAML. Like the CDI library's strict
// decoding, a field it does not know is an error; so are the spec's fields slicelab does not
// model (annotations, intelRdt, netDevices, additionalGids, device numbers and owners). Throws
// InputError naming `source` and the field. Does not validate (validate_cdi_spec does).
CdiSpec parse_cdi_spec(std::string_view text, std::string_view source);

}  // namespace slicelab::device_plugin
