#include "backends/interposer/config.h"

#include <charconv>
#include <cstdlib>

namespace slicelab::interposer {

std::optional<uint64_t> parse_size(std::string_view t) {
  while (!t.empty() && (t.back() == ' ' || t.back() == '\n')) t.remove_suffix(1);
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec != std::errc() || end == t.data()) return std::nullopt;
  std::string_view unit(end, static_cast<size_t>(t.data() + t.size() - end));
  if (unit.ends_with("ib") || unit.ends_with("iB"))
    unit.remove_suffix(2);
  else if (unit.size() == 2 && (unit.back() == 'b' || unit.back() == 'B'))
    unit.remove_suffix(1);
  int shift = 0;
  if (unit.empty() || unit == "b" || unit == "B")
    shift = 0;
  else if (unit == "k" || unit == "K")
    shift = 10;
  else if (unit == "m" || unit == "M")
    shift = 20;
  else if (unit == "g" || unit == "G")
    shift = 30;
  else if (unit == "t" || unit == "T")
    shift = 40;
  else
    return std::nullopt;
  if (shift > 0 && value > (UINT64_MAX >> shift)) return std::nullopt;
  return value << shift;
}

std::optional<int> parse_percent(std::string_view t) {
  int value = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec != std::errc() || end != t.data() + t.size() || value < 0 || value > 100)
    return std::nullopt;
  return value;
}

namespace {

struct Lookup {
  const std::function<const char*(const char*)>& getenv;
  // First set variable among `names`, with its name.
  std::optional<std::pair<std::string, std::string>> first(
      std::initializer_list<std::string> names) const {
    for (const auto& n : names)
      if (const char* v = getenv(n.c_str()); v && *v) return std::make_pair(n, std::string(v));
    return std::nullopt;
  }
};

}  // namespace

Config load_config(const std::function<const char*(const char*)>& getenv) {
  Config c;
  const Lookup env{getenv};
  for (int i = 0; i < kMaxDevices; ++i) {
    const std::string s = std::to_string(i);
    if (auto v = env.first({"SLICELAB_MEMORY_LIMIT_" + s, "CUDA_DEVICE_MEMORY_LIMIT_" + s,
                            "SLICELAB_MEMORY_LIMIT", "CUDA_DEVICE_MEMORY_LIMIT"})) {
      if (auto b = parse_size(v->second); b && *b > 0) {
        c.devices[i].memory_bytes = *b;
      } else if (i == 0 || v->first.ends_with("_" + s)) {
        // A global variable is reported once (with device 0), not once per device.
        c.warnings.push_back(v->first + "='" + v->second +
                             "' is not a size like 3000m, 2g or a byte count; device " + s +
                             " has no memory cap");
      }
    }
    if (auto v = env.first({"SLICELAB_SM_LIMIT_" + s, "CUDA_DEVICE_SM_LIMIT_" + s,
                            "SLICELAB_SM_LIMIT", "CUDA_DEVICE_SM_LIMIT"})) {
      if (auto p = parse_percent(v->second)) {
        c.devices[i].sm_percent = *p == 0 ? 100 : *p;
      } else if (i == 0 || v->first.ends_with("_" + s)) {
        c.warnings.push_back(v->first + "='" + v->second + "' is not a percentage 0-100; device " +
                             s + " has no compute cap");
      }
    }
  }
  if (auto v = env.first({"SLICELAB_SHARED_REGION", "CUDA_DEVICE_MEMORY_SHARED_CACHE"}))
    c.region_path = v->second;
  if (auto v = env.first({"SLICELAB_MEASURE_EVERY"})) {
    int n = 0;
    auto [end, ec] = std::from_chars(v->second.data(), v->second.data() + v->second.size(), n);
    if (ec == std::errc() && end == v->second.data() + v->second.size() && n >= 1 && n <= 1024)
      c.measure_every = n;
    else
      c.warnings.push_back("SLICELAB_MEASURE_EVERY='" + v->second +
                           "' is not an integer 1-1024; timing one launch in 32");
  }
  if (auto v = env.first({"SLICELAB_NVML_RECONCILE"})) {
    if (v->second == "1" || v->second == "0")
      c.nvml_reconcile = v->second == "1";
    else
      c.warnings.push_back("SLICELAB_NVML_RECONCILE='" + v->second +
                           "' is not 0 or 1; no reconciliation");
  }
  if (auto v = env.first({"SLICELAB_TEST_FAKE_CLOCK"})) c.fake_clock = v->second == "1";
  if (auto v = env.first({"SLICELAB_TEST_HANG_IN_LOCK"})) c.test_hang_in_lock = v->second == "1";
  return c;
}

}  // namespace slicelab::interposer
