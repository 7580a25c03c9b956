// Fuzzes the CEL matcher of DRA selectors (sim/modes/dra/cel_*): the input's first line is an
// expression, each later line the value of a string attribute (a, b, c, d, then more lines
// ignored). An expression that compiles is evaluated on that device: the result is a bool or a
// CEL runtime error, the same twice over, and every pattern matches in linear time (RE2), which
// libFuzzer's -timeout turns into a finding if it does not.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "sim/modes/dra/cel_expression.h"
#include "workloads/input_error.h"

namespace {

class FuzzDevice final : public slicelab::CelDevice {
 public:
  std::vector<std::string> strings;  // attributes a, b, c, d of gpu.nvidia.com
  std::string_view driver() const override { return "gpu.nvidia.com"; }
  slicelab::CelValue attribute(std::string_view domain, std::string_view name) const override {
    if (domain != "gpu.nvidia.com") return {};
    if (name == "index") return slicelab::CelValue::integer(static_cast<int64_t>(strings.size()));
    if (name == "cudaComputeCapability") return slicelab::CelValue::version({9, 0, 0});
    if (name.size() == 1 && name[0] >= 'a' && name[0] < 'a' + static_cast<char>(strings.size()))
      return slicelab::CelValue::string(strings[static_cast<size_t>(name[0] - 'a')]);
    return {};
  }
  slicelab::CelValue capacity(std::string_view domain, std::string_view name) const override {
    if (domain == "gpu.nvidia.com" && name == "memory")
      return slicelab::CelValue::quantity_milli(int64_t{80} << 40);
    return {};
  }
  bool allow_multiple_allocations() const override { return !strings.empty(); }
};

bool same(const slicelab::CelValue& x, const slicelab::CelValue& y) {
  return x.type == y.type && x.b == y.b && x.fault == y.fault;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nl = input.find('\n');
  const std::string_view expression = input.substr(0, nl);
  FuzzDevice device;
  for (size_t at = nl; at != std::string_view::npos && device.strings.size() < 4;) {
    const size_t next = input.find('\n', at + 1);
    device.strings.emplace_back(input.substr(
        at + 1, next == std::string_view::npos ? std::string_view::npos : next - at - 1));
    at = next;
  }
  try {
    slicelab::CelRegexCache regexes;
    const slicelab::CelExpression e = slicelab::CelExpression::compile(
        expression, [](size_t offset) { return "fuzz:1:" + std::to_string(offset + 1); }, &regexes);
    const slicelab::CelValue first = e.evaluate(device);
    if (first.type != slicelab::CelType::kBool && first.type != slicelab::CelType::kError)
      std::abort();                                      // evaluate() promises a bool or an error
    if (!same(first, e.evaluate(device))) std::abort();  // and no state between evaluations
  } catch (const slicelab::InputError&) {
  }
  return 0;
}
