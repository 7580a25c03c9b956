// Writing a CDI spec where container runtimes read it (/var/run/cdi): validated first, never
// over a file that is not slicelab's spec of the same kind, through a temporary file renamed.
#pragma once

#include <string>

#include "backends/device_plugin/cdi_spec.h"
#include "backends/device_plugin/cdi_spec_text.h"

namespace slicelab {

// /var/run/cdi is the CDI library's folder for generated specs (DefaultDynamicDir; /etc/cdi is
// for static ones a package installs): the spec describes the GPUs found at boot and is
// regenerated when MIG instances change, as nvidia-ctk's /var/run/cdi/nvidia.yaml is. YAML, as
// nvidia-ctk writes it; the name says whose it is and differs from nvidia.yaml, so both can sit
// side by side (their kinds differ: slicelab.io/gpu and nvidia.com/gpu).
inline constexpr const char* kDefaultCdiSpecPath = "/var/run/cdi/slicelab.yaml";

// The format for `path`: `option` ("json" or "yaml") when given, else from the extension
// (".json": JSON, anything else YAML). Throws InputError for another option.
device_plugin::CdiFormat cdi_format_for(const std::string& path, const std::string& option);

// Writes `spec` to `path` in `format`. Refused (InputError): a spec validate_cdi_spec finds
// errors in (all listed). Refused (OutputRefused): a name not ending in .json or .yaml (the
// runtimes read no other file of their CDI folders); a folder, link, device, pipe or socket
// (check_output_file); an existing file that is not a CDI spec of the same kind, since
// slicelab replaces only the spec it wrote. A missing parent folder is created. The temporary
// file ends in neither .json nor .yaml, so a runtime scanning the folder never reads it half
// written.
void write_cdi_spec(const device_plugin::CdiSpec& spec, device_plugin::CdiFormat format,
                    const std::string& path);

}  // namespace slicelab
