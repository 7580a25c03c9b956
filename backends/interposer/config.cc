#include "backends/interposer/config.h"

#include <grp.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "workloads/edit_distance.h"

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
  std::optional<std::string> get(const std::string& name) const {
    if (const char* v = getenv(name.c_str()); v && *v) return std::string(v);
    return std::nullopt;
  }
};

// A value read from the first of several variables that holds a readable one.
template <class T>
struct Found {
  std::string name;
  std::string text;
  T value;
};

// The first variable among `names` whose value `parse` accepts. Each one set before it with a
// value it rejects gets a warning saying what applies instead: a later variable's value, or
// `otherwise` (`fallback` describes it when the caller has one).
template <class T, class Parse>
std::optional<Found<T>> first_valid(const Lookup& env, const std::vector<std::string>& names,
                                    Parse parse, const std::string& expected,
                                    const std::string& otherwise, std::vector<std::string>* warn) {
  std::vector<std::string> bad;
  std::optional<Found<T>> found;
  for (const auto& n : names) {
    const auto v = env.get(n);
    if (!v) continue;
    if (auto p = parse(*v)) {
      found = Found<T>{n, *v, *p};
      break;
    }
    bad.push_back(n + "='" + *v + "' is not " + expected);
  }
  for (const auto& b : bad)
    warn->push_back(
        b + "; " + (found ? "using " + found->name + "='" + found->text + "' instead" : otherwise));
  return found;
}

std::optional<uint64_t> positive_size(std::string_view t) {
  auto b = parse_size(t);
  return b && *b > 0 ? b : std::nullopt;
}

constexpr const char* kSizeText = "a size like 3000m, 2g or a byte count";
constexpr const char* kPercentText = "a percentage 0-100";

// Every variable the interposer reads (per-device ones without their _<i>).
constexpr std::string_view kKnown[] = {"SLICELAB_MEMORY_LIMIT",    "SLICELAB_SM_LIMIT",
                                       "SLICELAB_SHARED_REGION",   "SLICELAB_REGION_GROUP",
                                       "SLICELAB_MEASURE_EVERY",   "SLICELAB_NVML_RECONCILE",
                                       "SLICELAB_TEST_FAKE_CLOCK", "SLICELAB_TEST_HANG_IN_LOCK"};
constexpr std::string_view kPerDevice[] = {"SLICELAB_MEMORY_LIMIT", "SLICELAB_SM_LIMIT"};
// SLICELAB_* names that other parts of slicelab set or read in a pod's environment (the local
// backend, its tools, the test stand-ins): not the interposer's, not typos.
constexpr std::string_view kOthers[] = {"SLICELAB_POD",         "SLICELAB_NVML_LIBRARY",
                                        "SLICELAB_MPS_CONTROL", "SLICELAB_NVIDIA_SMI",
                                        "SLICELAB_VEGA_DIR",    "SLICELAB_CHROMIUM"};
constexpr std::string_view kOtherPrefixes[] = {"SLICELAB_FAKE_", "SLICELAB_STANDIN_",
                                               "SLICELAB_TEST_", "SLICELAB_OVERHEAD_TEST_"};

// `name` without a trailing _<digits>, and the device number it names (-1: none).
std::pair<std::string_view, int64_t> split_device(std::string_view name) {
  size_t i = name.size();
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') --i;
  if (i == name.size() || i == 0 || name[i - 1] != '_' || name.size() - i > 9) return {name, -1};
  int64_t dev = 0;
  for (size_t k = i; k < name.size(); ++k) dev = dev * 10 + (name[k] - '0');
  return {name.substr(0, i - 1), dev};
}

bool known_name(std::string_view name) {
  for (auto k : kKnown)
    if (name == k) return true;
  const auto [base, dev] = split_device(name);
  // Per device as the interposer reads it: _0 to _15, without leading zeros.
  if (dev >= 0 && dev < kMaxDevices && name.substr(base.size() + 1) == std::to_string(dev))
    for (auto k : kPerDevice)
      if (base == k) return true;
  for (auto k : kOthers)
    if (name == k) return true;
  for (auto p : kOtherPrefixes)
    if (name.starts_with(p)) return true;
  return false;
}

}  // namespace

std::string nearest_known_name(std::string_view name) {
  // Names are short; a long one is compared by its head only, so the cost stays bounded.
  if (name.size() > 64) name = name.substr(0, 64);
  const auto [base, dev] = split_device(name);
  std::string_view best;
  size_t best_d = 4;
  for (auto k : kKnown) {
    const size_t d = edit_distance(name, k);
    if (d < best_d) best_d = d, best = k;
  }
  if (dev >= 0)
    for (auto k : kPerDevice) {
      const size_t d = edit_distance(base, k);
      if (d < best_d) return std::string(k) + "_" + std::to_string(dev);
    }
  return std::string(best);
}

Config load_config(const std::function<const char*(const char*)>& getenv,
                   const std::vector<std::string>& names) {
  Config c;
  const Lookup env{getenv};
  auto& warn = c.warnings;
  auto percent = [](std::string_view t) -> std::optional<int> {
    if (auto p = parse_percent(t)) return *p == 0 ? 100 : *p;  // 0: no limit, as in HAMi-core
    return std::nullopt;
  };
  // Global values first: they are what a device without its own variable falls back to.
  const auto mem_all = first_valid<uint64_t>(
      env, {"SLICELAB_MEMORY_LIMIT", "CUDA_DEVICE_MEMORY_LIMIT"}, positive_size, kSizeText,
      "devices without their own variable have no memory cap", &warn);
  const auto sm_all =
      first_valid<int>(env, {"SLICELAB_SM_LIMIT", "CUDA_DEVICE_SM_LIMIT"}, percent, kPercentText,
                       "devices without their own variable have no compute cap", &warn);
  if (mem_all) c.other.memory_bytes = mem_all->value;
  if (sm_all) c.other.sm_percent = sm_all->value;
  for (int i = 0; i < kMaxDevices; ++i) {
    const std::string s = std::to_string(i);
    const auto mem = first_valid<uint64_t>(
        env, {"SLICELAB_MEMORY_LIMIT_" + s, "CUDA_DEVICE_MEMORY_LIMIT_" + s}, positive_size,
        kSizeText,
        mem_all ? "using " + mem_all->name + "='" + mem_all->text + "' for device " + s
                : "device " + s + " has no memory cap",
        &warn);
    c.devices[i].memory_bytes = mem ? mem->value : c.other.memory_bytes;
    const auto sm = first_valid<int>(
        env, {"SLICELAB_SM_LIMIT_" + s, "CUDA_DEVICE_SM_LIMIT_" + s}, percent, kPercentText,
        sm_all ? "using " + sm_all->name + "='" + sm_all->text + "' for device " + s
               : "device " + s + " has no compute cap",
        &warn);
    c.devices[i].sm_percent = sm ? sm->value : c.other.sm_percent;
  }
  if (auto v = env.get("SLICELAB_SHARED_REGION"))
    c.region_path = *v;
  else if (auto h = env.get("CUDA_DEVICE_MEMORY_SHARED_CACHE"))
    c.region_path = *h;
  if (auto v = env.get("SLICELAB_REGION_GROUP")) {
    if (auto gid = lookup_group(*v))
      c.region_gid = *gid;
    else
      warn.push_back("SLICELAB_REGION_GROUP='" + *v +
                     "' is no group of this system; the region is for this uid only (0600)");
  }
  if (auto v = env.get("SLICELAB_MEASURE_EVERY")) {
    int n = 0;
    auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
    if (ec == std::errc() && end == v->data() + v->size() && n >= 1 && n <= 1024)
      c.measure_every = n;
    else
      warn.push_back("SLICELAB_MEASURE_EVERY='" + *v +
                     "' is not an integer 1-1024; timing one launch in 32");
  }
  if (auto v = env.get("SLICELAB_NVML_RECONCILE")) {
    if (*v == "1" || *v == "0")
      c.nvml_reconcile = *v == "1";
    else
      warn.push_back("SLICELAB_NVML_RECONCILE='" + *v + "' is not 0 or 1; no reconciliation");
  }
  if (auto v = env.get("SLICELAB_TEST_FAKE_CLOCK")) c.fake_clock = *v == "1";
  if (auto v = env.get("SLICELAB_TEST_HANG_IN_LOCK")) c.test_hang_in_lock = *v == "1";
  for (const auto& n : names) {
    const auto [base, dev] = split_device(n);
    const bool memory = base == "SLICELAB_MEMORY_LIMIT" || base == "CUDA_DEVICE_MEMORY_LIMIT";
    const bool compute = base == "SLICELAB_SM_LIMIT" || base == "CUDA_DEVICE_SM_LIMIT";
    if (dev >= kMaxDevices && (memory || compute)) {
      // A cap meant for a device the tables do not reach: its allocations are refused rather
      // than let through uncounted.
      const auto v = env.get(n);
      const auto b = v && memory ? positive_size(*v) : std::nullopt;
      if (b && *b < c.other.memory_bytes) c.other.memory_bytes = *b;
      warn.push_back(n + ": the interposer counts devices 0-" + std::to_string(kMaxDevices - 1) +
                     (memory ? " only; allocations on a device beyond are refused while a memory "
                               "cap applies to it"
                             : " only; launches on a device beyond are not paced"));
      continue;
    }
    if (!n.starts_with("SLICELAB_") || known_name(n)) continue;
    const std::string near = nearest_known_name(n);
    warn.push_back(n + " is not a variable slicelab's interposer knows" +
                   (near.empty() ? "" : " (did you mean " + near + "?)") + "; ignored");
  }
  return c;
}

std::optional<int64_t> lookup_group(std::string_view text) {
  if (text.empty() || text.size() > 256) return std::nullopt;
  int64_t gid = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), gid);
  if (ec == std::errc() && end == text.data() + text.size())
    return gid >= 0 && gid < INT32_MAX ? std::optional<int64_t>(gid) : std::nullopt;
  const std::string name(text);
  group g{};
  group* out = nullptr;
  std::vector<char> buf(16384);
  if (getgrnam_r(name.c_str(), &g, buf.data(), buf.size(), &out) != 0 || !out) return std::nullopt;
  return static_cast<int64_t>(out->gr_gid);
}

}  // namespace slicelab::interposer
