// The interposer's environment parsing: sizes (Kubernetes' and HAMi-core's), percentages,
// precedence of SLICELAB_* over HAMi names and of per-device over global variables, and a cap it
// cannot read failing closed.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "backends/interposer/config.h"

namespace slicelab::interposer {
namespace {

Config load(const std::map<std::string, std::string>& env) {
  return load_config([&](const char* n) -> const char* {
    auto it = env.find(n);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

// As the interposer calls it: with the names of the variables that are set.
Config load_named(const std::map<std::string, std::string>& env) {
  std::vector<std::string> names;
  for (const auto& [k, v] : env) names.push_back(k);
  return load_config(
      [&](const char* n) -> const char* {
        auto it = env.find(n);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      names);
}

size_t mentions(const Config& c, const std::string& text) {
  size_t n = 0;
  for (const auto& w : c.warnings) n += w.find(text) != std::string::npos;
  return n;
}

TEST(InterposerConfig, ReadsKubernetesQuantities) {
  EXPECT_EQ(parse_size("1Gi"), uint64_t{1} << 30);
  EXPECT_EQ(parse_size("512Mi"), uint64_t{512} << 20);
  EXPECT_EQ(parse_size("1.5Gi"), uint64_t{3} << 29);
  EXPECT_EQ(parse_size("64Ki"), uint64_t{64} << 10);
  EXPECT_EQ(parse_size("2Ti"), uint64_t{2} << 40);
  EXPECT_EQ(parse_size("1Pi"), uint64_t{1} << 50);
  EXPECT_EQ(parse_size("1G"), uint64_t{1'000'000'000});
  EXPECT_EQ(parse_size("1.5G"), uint64_t{1'500'000'000});
  EXPECT_EQ(parse_size("500M"), uint64_t{500'000'000});
  EXPECT_EQ(parse_size("2k"), uint64_t{2000});
  EXPECT_EQ(parse_size("3T"), uint64_t{3'000'000'000'000});
  EXPECT_EQ(parse_size("1P"), uint64_t{1'000'000'000'000'000});
  EXPECT_EQ(parse_size("12345"), uint64_t{12345});
  EXPECT_EQ(parse_size(" 1Gi\n"), uint64_t{1} << 30);
  // A fraction of a byte is dropped: a cap never rounds up.
  EXPECT_EQ(parse_size("0.1Ki"), uint64_t{102});
  EXPECT_EQ(parse_size("1.999999999"), uint64_t{1});
  EXPECT_EQ(parse_size("0.000000001Pi"), uint64_t{1125899});  // 1125899.9
}

TEST(InterposerConfig, ReadsHamiCoresSizes) {
  // HAMi-core's get_limit_from_env: one trailing k/m/g, binary. slicelab's writers use <MiB>m.
  EXPECT_EQ(parse_size("3000m"), uint64_t{3000} << 20);
  EXPECT_EQ(parse_size("1024m"), uint64_t{1} << 30);
  EXPECT_EQ(parse_size("1g"), uint64_t{1} << 30);
  EXPECT_EQ(parse_size("2g"), uint64_t{2} << 30);
  EXPECT_EQ(parse_size("512K"), uint64_t{512} << 10);
  EXPECT_EQ(parse_size("1t"), uint64_t{1} << 40);
}

TEST(InterposerConfig, RefusesWhatItCannotReadAndSaysWhy) {
  struct Case {
    const char* text;
    const char* why;
  };
  for (const Case c : {Case{"", "found nothing"},
                       {"lots", "found 'lots', which does not start with a digit"},
                       {"-5m", "does not start with a digit"},
                       {"+5m", "does not start with a digit"},
                       {"0x10m", "found the suffix 'x10m'"},
                       {"3000x", "found the suffix 'x'"},
                       {"1GiB", "found the suffix 'GiB'"},
                       {"1gb", "found the suffix 'gb'"},
                       {"1 Gi", "found the suffix ' Gi'"},
                       {"1e9", "found the suffix 'e9'"},
                       {"1.", "found no digit after the point"},
                       {"1.5.5Gi", "found the suffix '.5Gi'"},
                       {"1.1234567891Gi", "more than 9 digits after the point"},
                       {"0", "found 0 bytes, which is no cap"},
                       {"0Gi", "found 0 bytes"},
                       {"0.4", "found 0 bytes"},
                       {"99999999999999999999", "found more than 1Pi"},
                       {"2Pi", "found more than 1Pi"},
                       {"1Ei", "found more than 1Pi"},
                       {"20000000000000t", "found more than 1Pi"},
                       {"18446744073709551615", "found more than 1Pi"}}) {
    std::string why;
    EXPECT_FALSE(parse_size(c.text, &why).has_value()) << c.text;
    EXPECT_NE(why.find(c.why), std::string::npos) << c.text << ": " << why;
  }
  EXPECT_EQ(parse_size("1Pi"), kMaxMemoryCap);
  EXPECT_FALSE(parse_size("1125899906842625").has_value());  // 1Pi + 1
  std::string why;
  EXPECT_FALSE(parse_size(std::string("1\x01\xff", 3), &why).has_value());
  EXPECT_EQ(why, "found the suffix '\\x01\\xff'");
}

TEST(InterposerConfig, ParsesPercentages) {
  EXPECT_EQ(parse_percent("0"), 0);
  EXPECT_EQ(parse_percent("30"), 30);
  EXPECT_EQ(parse_percent("100"), 100);
  for (const char* bad : {"", "101", "-1", "30%", "abc", "3.5"})
    EXPECT_FALSE(parse_percent(bad).has_value()) << bad;
}

TEST(InterposerConfig, PrecedenceAndPerDeviceCaps) {
  const Config c = load({{"CUDA_DEVICE_MEMORY_LIMIT", "1g"},
                         {"CUDA_DEVICE_MEMORY_LIMIT_1", "2g"},
                         {"SLICELAB_MEMORY_LIMIT_2", "3g"},
                         {"CUDA_DEVICE_MEMORY_LIMIT_2", "9g"},
                         {"CUDA_DEVICE_SM_LIMIT", "40"},
                         {"SLICELAB_SM_LIMIT_3", "0"},
                         {"CUDA_DEVICE_MEMORY_SHARED_CACHE", "/tmp/hami.cache"}});
  EXPECT_EQ(c.devices[0].memory_bytes, uint64_t{1} << 30);
  EXPECT_EQ(c.devices[1].memory_bytes, uint64_t{2} << 30);
  EXPECT_EQ(c.devices[2].memory_bytes, uint64_t{3} << 30);
  EXPECT_EQ(c.devices[15].memory_bytes, uint64_t{1} << 30);
  EXPECT_EQ(c.devices[0].sm_percent, 40);
  EXPECT_EQ(c.devices[3].sm_percent, 100);  // 0 means no limit, as in HAMi-core
  EXPECT_EQ(c.region_path, "/tmp/hami.cache");
  EXPECT_EQ(c.measure_every, 32);
  EXPECT_TRUE(c.warnings.empty());
  EXPECT_EQ(load({}).devices[0].memory_bytes, UINT64_MAX);
}

void expect_failed_closed(const Config& c) {
  EXPECT_FALSE(c.fail_closed.empty());
  for (const auto& d : c.devices) {
    EXPECT_EQ(d.memory_bytes, uint64_t{0});
    EXPECT_EQ(d.sm_percent, kFailClosedPercent);
  }
  EXPECT_EQ(c.other.memory_bytes, uint64_t{0});
  EXPECT_EQ(c.other.sm_percent, kFailClosedPercent);
}

TEST(InterposerConfig, AnUnreadableCapFailsClosedNamingEachBadValue) {
  const Config c = load({{"CUDA_DEVICE_MEMORY_LIMIT", "lots"},
                         {"SLICELAB_MEMORY_LIMIT_12", "1x"},
                         {"CUDA_DEVICE_SM_LIMIT_1", "150"},
                         {"SLICELAB_MEASURE_EVERY", "0"},
                         {"SLICELAB_NVML_RECONCILE", "yes"}});
  expect_failed_closed(c);
  EXPECT_EQ(c.fail_closed,
            "CUDA_DEVICE_MEMORY_LIMIT='lots': expected a byte count or a size such as 1Gi, 512Mi, "
            "1.5Gi, 1G or HAMi-core's 1024m, 1g, found 'lots', which does not start with a digit; "
            "CUDA_DEVICE_SM_LIMIT_1='150': expected a whole percentage 0-100; "
            "SLICELAB_MEMORY_LIMIT_12='1x': expected a byte count or a size such as 1Gi, 512Mi, "
            "1.5Gi, 1G or HAMi-core's 1024m, 1g, found the suffix 'x'");
  EXPECT_NE(fail_closed_message(c).find("; failing closed: every GPU allocation is refused "
                                        "(CUDA_ERROR_OUT_OF_MEMORY, no memory shown) and "
                                        "launches are paced to 1%"),
            std::string::npos);
  // Knobs that are no caps still warn and fall back.
  ASSERT_EQ(c.warnings.size(), 2u);
  EXPECT_EQ(mentions(c, "SLICELAB_NVML_RECONCILE='yes' is not 0 or 1"), 1u);
  EXPECT_EQ(mentions(c, "SLICELAB_MEASURE_EVERY='0' is not an integer 1-1024"), 1u);
  EXPECT_EQ(c.measure_every, 32);
  // The Kubernetes spelling that used to mean no cap at all.
  const Config k = load({{"SLICELAB_MEMORY_LIMIT", "1Gi"}});
  EXPECT_TRUE(k.fail_closed.empty());
  EXPECT_EQ(k.devices[0].memory_bytes, uint64_t{1} << 30);
  EXPECT_EQ(k.other.memory_bytes, uint64_t{1} << 30);
}

TEST(InterposerConfig, ABadValueFailsClosedEvenBesideAReadableOne) {
  // A typo in ours is not replaced by HAMi's value (which may be larger than meant).
  Config c = load({{"SLICELAB_MEMORY_LIMIT", "3000x"}, {"CUDA_DEVICE_MEMORY_LIMIT", "2g"}});
  expect_failed_closed(c);
  EXPECT_NE(c.fail_closed.find("SLICELAB_MEMORY_LIMIT='3000x'"), std::string::npos);
  // Nor the other way round, nor a per-device one by the global one.
  expect_failed_closed(load({{"SLICELAB_MEMORY_LIMIT", "3g"}, {"CUDA_DEVICE_MEMORY_LIMIT", "x"}}));
  expect_failed_closed(load({{"SLICELAB_SM_LIMIT_2", "x"}, {"SLICELAB_SM_LIMIT", "40"}}));
  expect_failed_closed(load_named({{"SLICELAB_MEMORY_LIMIT_20", "lots"}}));
  // Values beyond the table's devices too; and 0 bytes is no cap anyone means.
  c = load({{"CUDA_DEVICE_MEMORY_LIMIT_0", "0"}});
  expect_failed_closed(c);
  EXPECT_NE(c.fail_closed.find("found 0 bytes, which is no cap"), std::string::npos);
}

TEST(InterposerConfig, UnknownSlicelabNamesAreWarnedWithTheNearestKnownName) {
  const Config c = load_named({{"SLICELAB_MEMROY_LIMIT", "1g"},
                               {"SLICELAB_SM_LIMT_2", "10"},
                               {"SLICELAB_SHARED_REGOIN", "/tmp/r"},
                               {"SLICELAB_COMPLETELY_DIFFERENT", "1"},
                               {"CUDA_DEVICE_MEMORY_LIMIT", "64m"},
                               // Known: ours, per device, other slicelab parts', tests'.
                               {"SLICELAB_MEMORY_LIMIT_3", "1g"},
                               {"SLICELAB_POD", "a"},
                               {"SLICELAB_FAKE_DEVICES", "2"},
                               {"SLICELAB_TEST_CAP_1", "1"}});
  ASSERT_EQ(c.warnings.size(), 4u) << c.warnings[0];
  EXPECT_EQ(mentions(c,
                     "SLICELAB_MEMROY_LIMIT is not a variable slicelab's interposer knows "
                     "(did you mean SLICELAB_MEMORY_LIMIT?); ignored"),
            1u);
  EXPECT_EQ(mentions(c,
                     "SLICELAB_SM_LIMT_2 is not a variable slicelab's interposer knows (did "
                     "you mean SLICELAB_SM_LIMIT_2?)"),
            1u);
  EXPECT_EQ(mentions(c, "(did you mean SLICELAB_SHARED_REGION?)"), 1u);
  EXPECT_EQ(mentions(c,
                     "SLICELAB_COMPLETELY_DIFFERENT is not a variable slicelab's interposer "
                     "knows; ignored"),
            1u);
  // The HAMi value beside the typo holds.
  EXPECT_EQ(c.devices[0].memory_bytes, uint64_t{64} << 20);
  EXPECT_EQ(c.devices[3].memory_bytes, uint64_t{1} << 30);
  EXPECT_EQ(nearest_known_name("SLICELAB_NVML_RECONCILLE"), "SLICELAB_NVML_RECONCILE");
  // A leading zero is never read (the interposer reads _1): named, with the name it reads.
  EXPECT_EQ(load_named({{"SLICELAB_SM_LIMIT_01", "5"}}).warnings.at(0),
            "SLICELAB_SM_LIMIT_01 is not a variable slicelab's interposer knows (did you mean "
            "SLICELAB_SM_LIMIT_1?); ignored");
  EXPECT_EQ(nearest_known_name(std::string(5000, 'S')), "");
}

TEST(InterposerConfig, CapsForDevicesBeyondTheTableAreKeptForThem) {
  const Config c =
      load_named({{"SLICELAB_MEMORY_LIMIT_20", "1g"}, {"CUDA_DEVICE_SM_LIMIT_99", "5"}});
  EXPECT_EQ(c.other.memory_bytes, uint64_t{1} << 30);  // refuses allocations beyond the table
  EXPECT_EQ(c.devices[0].memory_bytes, UINT64_MAX);
  EXPECT_EQ(mentions(c, "SLICELAB_MEMORY_LIMIT_20: the interposer counts devices 0-15 only"), 1u);
  EXPECT_EQ(mentions(c,
                     "CUDA_DEVICE_SM_LIMIT_99: the interposer counts devices 0-15 only; "
                     "launches on a device beyond are not paced"),
            1u);
  // The global variable covers them too.
  EXPECT_EQ(load({{"SLICELAB_MEMORY_LIMIT", "2g"}}).other.memory_bytes, uint64_t{2} << 30);
}

TEST(InterposerConfig, RegionGroupByNumberOrName) {
  EXPECT_EQ(load({{"SLICELAB_REGION_GROUP", "0"}}).region_gid, 0);
  EXPECT_EQ(load({{"SLICELAB_REGION_GROUP", "root"}}).region_gid, 0);
  EXPECT_EQ(load({}).region_gid, -1);
  const Config c = load({{"SLICELAB_REGION_GROUP", "no-such-group-here"}});
  EXPECT_EQ(c.region_gid, -1);
  EXPECT_EQ(mentions(c, "SLICELAB_REGION_GROUP='no-such-group-here' is no group"), 1u);
  EXPECT_EQ(load({{"SLICELAB_REGION_GROUP", "-5"}}).region_gid, -1);
}

}  // namespace
}  // namespace slicelab::interposer
