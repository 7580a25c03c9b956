// Fuzzes the CDI spec reader and validator (backends/device_plugin/cdi_spec*): any text is
// read or refused with an InputError, and a spec that is read writes back (JSON and YAML) to
// text that reads back to the same spec.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "backends/device_plugin/cdi_spec.h"
#include "backends/device_plugin/cdi_spec_text.h"
#include "workloads/input_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace dp = slicelab::device_plugin;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  dp::CdiSpec spec;
  try {
    spec = dp::parse_cdi_spec(text, "fuzz");
  } catch (const slicelab::InputError&) {
    return 0;
  }
  (void)dp::validate_cdi_spec(spec);
  (void)dp::minimum_cdi_version(spec);
  // What was read is written and read again unchanged, in both formats.
  for (const dp::CdiFormat format : {dp::CdiFormat::kJson, dp::CdiFormat::kYaml}) {
    const std::string written = dp::cdi_spec_text(spec, format);
    if (written.size() > dp::kMaxCdiSpecBytes) continue;  // escapes can grow the text
    if (!(dp::parse_cdi_spec(written, "fuzz-again") == spec)) std::abort();
  }
  return 0;
}
