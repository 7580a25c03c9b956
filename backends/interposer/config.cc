#include "backends/interposer/config.h"

#include <grp.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "workloads/edit_distance.h"

namespace slicelab::interposer {

const char* const kSizeExpected =
    "a byte count or a size such as 1Gi, 512Mi, 1.5Gi, 1G or HAMi-core's 1024m, 1g";
const char* const kPercentExpected = "a whole percentage 0-100";

namespace {

struct Suffix {
  std::string_view text;
  uint64_t multiple;
};
// Kubernetes' binary and decimal suffixes, then HAMi-core's (binary) where Kubernetes has none
// or means something no one means for bytes ("m", milli).
constexpr Suffix kSuffixes[] = {
    {"", 1},
    {"Ki", uint64_t{1} << 10},
    {"Mi", uint64_t{1} << 20},
    {"Gi", uint64_t{1} << 30},
    {"Ti", uint64_t{1} << 40},
    {"Pi", uint64_t{1} << 50},
    {"Ei", uint64_t{1} << 60},
    {"k", 1'000},
    {"M", 1'000'000},
    {"G", 1'000'000'000},
    {"T", 1'000'000'000'000},
    {"P", 1'000'000'000'000'000},
    {"E", 1'000'000'000'000'000'000},
    {"K", uint64_t{1} << 10},
    {"m", uint64_t{1} << 20},
    {"g", uint64_t{1} << 30},
    {"t", uint64_t{1} << 40},
};
constexpr int kMaxFractionDigits = 9;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

std::string shown(std::string_view text) {
  std::string out;
  const size_t n = std::min<size_t>(text.size(), 64);
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (text.size() > n) out += "...";
  return out;
}

std::optional<uint64_t> parse_size(std::string_view t, std::string* why) {
  auto fail = [&](const std::string& w) -> std::optional<uint64_t> {
    if (why) *why = w;
    return std::nullopt;
  };
  static_assert(kMaxMemoryCap == 1125899906842624);
  constexpr const char* too_large =
      "found more than 1Pi (1125899906842624 bytes), which no GPU has";
  while (!t.empty() && (t.back() == ' ' || t.back() == '\n')) t.remove_suffix(1);
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  size_t i = 0;
  uint64_t whole = 0;
  for (; i < t.size() && is_digit(t[i]); ++i)
    if (__builtin_mul_overflow(whole, uint64_t{10}, &whole) ||
        __builtin_add_overflow(whole, static_cast<uint64_t>(t[i] - '0'), &whole))
      return fail(too_large);
  if (i == 0)
    return fail(t.empty() ? std::string("found nothing")
                          : "found '" + shown(t) + "', which does not start with a digit");
  uint64_t fraction = 0, scale = 1;
  if (i < t.size() && t[i] == '.') {
    const size_t first = ++i;
    for (; i < t.size() && is_digit(t[i]); ++i) {
      if (i - first == kMaxFractionDigits)
        return fail("found more than " + std::to_string(kMaxFractionDigits) +
                    " digits after the point");
      fraction = fraction * 10 + static_cast<uint64_t>(t[i] - '0');
      scale *= 10;
    }
    if (i == first) return fail("found no digit after the point");
  }
  const std::string_view unit = t.substr(i);
  const Suffix* suffix = nullptr;
  for (const Suffix& s : kSuffixes)
    if (s.text == unit) suffix = &s;
  if (!suffix) return fail("found the suffix '" + shown(unit) + "'");
  // The fraction's bytes, floor(multiple * fraction / scale), without overflow: with
  // multiple = q * scale + r, q * fraction < multiple and r * fraction < 10^18.
  const uint64_t part =
      suffix->multiple / scale * fraction + suffix->multiple % scale * fraction / scale;
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(whole, suffix->multiple, &bytes) ||
      __builtin_add_overflow(bytes, part, &bytes) || bytes > kMaxMemoryCap)
    return fail(too_large);
  if (bytes == 0) return fail("found 0 bytes, which is no cap (leave the cap out for none)");
  return bytes;
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
  const Getenv& getenv;
  std::optional<std::string> get(const std::string& name) const {
    if (const char* v = getenv(name.c_str()); v && *v) return std::string(v);
    return std::nullopt;
  }
};

// Every variable the interposer reads (per-device ones without their _<i>).
constexpr std::string_view kKnown[] = {
    "SLICELAB_MEMORY_LIMIT", "SLICELAB_SM_LIMIT",        "SLICELAB_SHARED_REGION",
    "SLICELAB_REGION_GROUP", "SLICELAB_MEASURE_EVERY",   "SLICELAB_NVML_RECONCILE",
    "SLICELAB_CAPS_FILE",    "SLICELAB_TEST_FAKE_CLOCK", "SLICELAB_TEST_HANG_IN_LOCK"};
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

// A memory or compute cap variable for a device beyond the table (…_16 and above).
struct Beyond {
  bool memory = false;
  bool compute = false;
};
Beyond beyond_table(std::string_view name) {
  const auto [base, dev] = split_device(name);
  if (dev < kMaxDevices) return {};
  return {base == "SLICELAB_MEMORY_LIMIT" || base == "CUDA_DEVICE_MEMORY_LIMIT",
          base == "SLICELAB_SM_LIMIT" || base == "CUDA_DEVICE_SM_LIMIT"};
}

// Reads cap variables, collecting every unreadable one: each must be readable, whichever wins.
struct CapReader {
  const Lookup& env;
  std::vector<std::string> bad;

  std::optional<uint64_t> size(const std::string& name) {
    const auto v = env.get(name);
    if (!v) return std::nullopt;
    std::string why;
    if (auto b = parse_size(*v, &why)) return b;
    bad.push_back(name + "='" + shown(*v) + "': expected " + kSizeExpected + ", " + why);
    return std::nullopt;
  }
  // 0 is "no limit", as in HAMi-core: 100.
  std::optional<int> percent(const std::string& name) {
    const auto v = env.get(name);
    if (!v) return std::nullopt;
    if (auto p = parse_percent(*v)) return *p == 0 ? 100 : *p;
    bad.push_back(name + "='" + shown(*v) + "': expected " + kPercentExpected);
    return std::nullopt;
  }
  // The value of the first of `names` that is set (all of them are read).
  template <class Read>
  auto first(Read read, std::initializer_list<std::string> names) {
    decltype(read(std::string())) found;
    for (const std::string& n : names)
      if (auto v = read(n); v && !found) found = v;
    return found;
  }
};

}  // namespace

void fail_closed_config(Config& c, const std::string& why) {
  c.fail_closed = why;
  for (DeviceCaps& d : c.devices) d = DeviceCaps{0, kFailClosedPercent};
  c.other = DeviceCaps{0, kFailClosedPercent};
}

std::string fail_closed_message(const Config& c) {
  return c.fail_closed +
         "; failing closed: every GPU allocation is refused "
         "(CUDA_ERROR_OUT_OF_MEMORY, no memory shown) and launches are paced to " +
         std::to_string(kFailClosedPercent) + "%";
}

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

void read_caps(const Getenv& getenv, const std::vector<std::string>& names, Config& c) {
  const Lookup env{getenv};
  CapReader read{env, {}};
  auto size = [&](const std::string& n) { return read.size(n); };
  auto percent = [&](const std::string& n) { return read.percent(n); };
  // Global values first: they are what a device without its own variable falls back to.
  if (auto m = read.first(size, {"SLICELAB_MEMORY_LIMIT", "CUDA_DEVICE_MEMORY_LIMIT"}))
    c.other.memory_bytes = *m;
  if (auto p = read.first(percent, {"SLICELAB_SM_LIMIT", "CUDA_DEVICE_SM_LIMIT"}))
    c.other.sm_percent = *p;
  for (int i = 0; i < kMaxDevices; ++i) {
    const std::string s = std::to_string(i);
    const auto m =
        read.first(size, {"SLICELAB_MEMORY_LIMIT_" + s, "CUDA_DEVICE_MEMORY_LIMIT_" + s});
    c.devices[i].memory_bytes = m ? *m : c.other.memory_bytes;
    const auto p = read.first(percent, {"SLICELAB_SM_LIMIT_" + s, "CUDA_DEVICE_SM_LIMIT_" + s});
    c.devices[i].sm_percent = p ? *p : c.other.sm_percent;
  }
  for (const auto& n : names) {
    const Beyond b = beyond_table(n);
    if (!b.memory && !b.compute) continue;
    // A cap meant for a device the tables do not reach: its allocations are refused rather
    // than let through uncounted.
    if (b.memory) {
      if (const auto m = read.size(n); m && *m < c.other.memory_bytes) c.other.memory_bytes = *m;
    } else {
      (void)read.percent(n);
    }
    c.warnings.push_back(n + ": the interposer counts devices 0-" +
                         std::to_string(kMaxDevices - 1) +
                         (b.memory ? " only; allocations on a device beyond are refused while a "
                                     "memory cap applies to it"
                                   : " only; launches on a device beyond are not paced"));
  }
  if (auto v = env.get("SLICELAB_SHARED_REGION"))
    c.region_path = *v;
  else if (auto h = env.get("CUDA_DEVICE_MEMORY_SHARED_CACHE"))
    c.region_path = *h;
  if (auto v = env.get("SLICELAB_REGION_GROUP")) {
    if (auto gid = lookup_group(*v))
      c.region_gid = *gid;
    else
      c.warnings.push_back("SLICELAB_REGION_GROUP='" + shown(*v) +
                           "' is no group of this system; the region is for this uid only (0600)");
  }
  if (auto v = env.get("SLICELAB_NVML_RECONCILE")) {
    if (*v == "1" || *v == "0")
      c.nvml_reconcile = *v == "1";
    else
      c.warnings.push_back("SLICELAB_NVML_RECONCILE='" + shown(*v) +
                           "' is not 0 or 1; no reconciliation");
  }
  if (!read.bad.empty()) {
    std::string why;
    for (const auto& b : read.bad) why += (why.empty() ? "" : "; ") + b;
    fail_closed_config(c, why);
  }
}

void read_knobs(const Getenv& getenv, const std::vector<std::string>& names, Config& c) {
  const Lookup env{getenv};
  if (auto v = env.get("SLICELAB_MEASURE_EVERY")) {
    int n = 0;
    auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
    if (ec == std::errc() && end == v->data() + v->size() && n >= 1 && n <= 1024)
      c.measure_every = n;
    else
      c.warnings.push_back("SLICELAB_MEASURE_EVERY='" + shown(*v) +
                           "' is not an integer 1-1024; timing one launch in 32");
  }
  if (auto v = env.get("SLICELAB_TEST_FAKE_CLOCK")) c.fake_clock = *v == "1";
  if (auto v = env.get("SLICELAB_TEST_HANG_IN_LOCK")) c.test_hang_in_lock = *v == "1";
  for (const auto& n : names) {
    const Beyond b = beyond_table(n);
    if (b.memory || b.compute || !n.starts_with("SLICELAB_") || known_name(n)) continue;
    const std::string near = nearest_known_name(n);
    c.warnings.push_back(shown(n) + " is not a variable slicelab's interposer knows" +
                         (near.empty() ? "" : " (did you mean " + near + "?)") + "; ignored");
  }
}

Config load_config(const Getenv& getenv, const std::vector<std::string>& names) {
  Config c;
  read_caps(getenv, names, c);
  read_knobs(getenv, names, c);
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
