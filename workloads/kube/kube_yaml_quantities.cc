#include "workloads/kube/kube_yaml_quantities.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <system_error>

#include "workloads/kube/kube_quantity.h"

namespace slicelab {

namespace {

// A plain number's text as a double (what YamlReader::number accepts).
bool parse_plain_number(std::string_view text, double& out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

// The largest size any *_mib or memory key takes (an exabyte), so sums over a cluster stay
// far from overflow.
constexpr int64_t kMaxMebibytes = 1'000'000'000'000;

// A memory quantity that ends in a milli, micro or nano suffix is a fraction of a byte
// ("512m" is 0.512 bytes), which Kubernetes accepts but nobody means.
std::string fractional_byte_error(std::string_view text) {
  if (text.empty()) return {};
  switch (text.back()) {
    case 'm':
      return fmt::format(
          "'{}' is thousandths of a byte ('m' is milli; did you mean 'Mi' (2^20) or 'M' (10^6)?)",
          text);
    case 'u':
    case 'n':
      return fmt::format("'{}' is a fraction of a byte ('{}' is {}); use Ki, Mi, Gi, k, M or G",
                         text, text.back(), text.back() == 'u' ? "micro" : "nano");
    default:
      return {};
  }
}

}  // namespace

int64_t kube_mebibytes(const YamlReader& yaml, const YAML::Node& node, std::string_view path) {
  constexpr const char* kExpected =
      "a size in MiB (an integer, or a Kubernetes quantity of bytes such as 512Mi, 16Gi, 10G)";
  if (!node.IsScalar()) yaml.fail_expected(node, path, kExpected);
  const std::string& text = node.Scalar();
  // A plain number keeps the meaning these keys always had: MiB.
  if (text.find_first_not_of("+-.0123456789") == std::string::npos) {
    double v = 0;
    if (!parse_plain_number(text, v) || v < 0 || v > static_cast<double>(kMaxMebibytes))
      yaml.fail_expected(node, path, kExpected);
    return static_cast<int64_t>(std::llround(v));
  }
  return kube_memory_bytes_as_mib(yaml, node, path);
}

int64_t kube_memory_bytes_as_mib(const YamlReader& yaml, const YAML::Node& node,
                                 std::string_view path) {
  constexpr const char* kExpected =
      "a memory quantity in bytes (e.g. 512Mi, 16Gi, 10G, 10e9, or a number of bytes)";
  if (!node.IsScalar()) yaml.fail_expected(node, path, kExpected);
  const std::string& text = node.Scalar();
  std::string error = fractional_byte_error(text);
  std::optional<int64_t> mib;
  if (error.empty()) mib = parse_memory_mib(text, error);
  if (mib && *mib > kMaxMebibytes)
    error = fmt::format("'{}' is more than the limit of 1000000000000 MiB", text), mib.reset();
  if (!mib)
    yaml.fail(node, path, fmt::format("expected {}, found '{}': {}", kExpected, text, error));
  return *mib;
}

int64_t kube_cpu_milli(const YamlReader& yaml, const YAML::Node& node, std::string_view path) {
  constexpr const char* kExpected = "a CPU quantity in cores (e.g. 4, 0.5, 500m)";
  constexpr int64_t kMaxMilli = int64_t{1} << 40;
  if (!node.IsScalar()) yaml.fail_expected(node, path, kExpected);
  const std::string& text = node.Scalar();
  std::string error;
  std::optional<int64_t> milli = parse_cpu_milli(text, error);
  if (milli && *milli > kMaxMilli)
    error = fmt::format("'{}' is more than the limit of {} cores", text, kMaxMilli / 1000),
    milli.reset();
  if (!milli)
    yaml.fail(node, path, fmt::format("expected {}, found '{}': {}", kExpected, text, error));
  return *milli;
}

std::optional<int64_t> kube_opt_mebibytes(const YamlReader& yaml, const YAML::Node& map,
                                          std::string_view path, const char* key) {
  const YAML::Node v = map[key];
  if (!v.IsDefined()) return std::nullopt;
  return kube_mebibytes(yaml, v, join_path(path, key));
}

std::optional<int64_t> kube_opt_memory_bytes_as_mib(const YamlReader& yaml, const YAML::Node& map,
                                                    std::string_view path, const char* key) {
  const YAML::Node v = map[key];
  if (!v.IsDefined()) return std::nullopt;
  return kube_memory_bytes_as_mib(yaml, v, join_path(path, key));
}

std::optional<int64_t> kube_opt_cpu_milli(const YamlReader& yaml, const YAML::Node& map,
                                          std::string_view path, const char* key) {
  const YAML::Node v = map[key];
  if (!v.IsDefined()) return std::nullopt;
  return kube_cpu_milli(yaml, v, join_path(path, key));
}

}  // namespace slicelab
