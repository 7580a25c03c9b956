// The interposer's environment parsing: sizes, percentages, precedence of SLICELAB_* over HAMi
// names and of per-device over global variables, and one warning per bad value.
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

TEST(InterposerConfig, ParsesSizesLikeHamiCore) {
  EXPECT_EQ(parse_size("3000m"), uint64_t{3000} << 20);
  EXPECT_EQ(parse_size("2g"), uint64_t{2} << 30);
  EXPECT_EQ(parse_size("2G"), uint64_t{2} << 30);
  EXPECT_EQ(parse_size("2GiB"), uint64_t{2} << 30);
  EXPECT_EQ(parse_size("512k"), uint64_t{512} << 10);
  EXPECT_EQ(parse_size("1t"), uint64_t{1} << 40);
  EXPECT_EQ(parse_size("12345"), uint64_t{12345});
  EXPECT_EQ(parse_size(" 64m "), uint64_t{64} << 20);
  for (const char* bad :
       {"", "m", "lots", "-5m", "3000x", "1.5g", "99999999999999999999", "20000000000000t"})
    EXPECT_FALSE(parse_size(bad).has_value()) << bad;
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

TEST(InterposerConfig, BadValuesGiveOneWarningEachAndNoCap) {
  const Config c = load({{"CUDA_DEVICE_MEMORY_LIMIT", "lots"},
                         {"SLICELAB_MEMORY_LIMIT_12", "1x"},
                         {"CUDA_DEVICE_SM_LIMIT_1", "150"},
                         {"SLICELAB_MEASURE_EVERY", "0"},
                         {"SLICELAB_NVML_RECONCILE", "yes"}});
  ASSERT_EQ(c.warnings.size(), 5u);
  EXPECT_FALSE(c.nvml_reconcile);
  EXPECT_NE(c.warnings[0].find("CUDA_DEVICE_MEMORY_LIMIT='lots'"), std::string::npos);
  EXPECT_NE(c.warnings[1].find("CUDA_DEVICE_SM_LIMIT_1='150'"), std::string::npos);
  EXPECT_NE(c.warnings[2].find("SLICELAB_MEMORY_LIMIT_12='1x'"), std::string::npos);
  EXPECT_EQ(c.devices[0].memory_bytes, UINT64_MAX);
  EXPECT_EQ(c.devices[12].memory_bytes, UINT64_MAX);
  EXPECT_EQ(c.devices[1].sm_percent, 100);
  EXPECT_EQ(c.measure_every, 32);
}

TEST(InterposerConfig, ABadValueOfOursFallsThroughToTheNextVariable) {
  Config c = load({{"SLICELAB_MEMORY_LIMIT", "3000x"}, {"CUDA_DEVICE_MEMORY_LIMIT", "2g"}});
  EXPECT_EQ(c.devices[0].memory_bytes, uint64_t{2} << 30);
  EXPECT_EQ(c.devices[15].memory_bytes, uint64_t{2} << 30);
  EXPECT_EQ(c.other.memory_bytes, uint64_t{2} << 30);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0],
            "SLICELAB_MEMORY_LIMIT='3000x' is not a size like 3000m, 2g or a byte count; using "
            "CUDA_DEVICE_MEMORY_LIMIT='2g' instead");
  c = load({{"SLICELAB_MEMORY_LIMIT_1", "lots"},
            {"CUDA_DEVICE_MEMORY_LIMIT_1", "1g"},
            {"SLICELAB_MEMORY_LIMIT_2", "bad"},
            {"SLICELAB_MEMORY_LIMIT", "3g"},
            {"SLICELAB_SM_LIMIT_2", "x"},
            {"SLICELAB_SM_LIMIT", "40"}});
  EXPECT_EQ(c.devices[1].memory_bytes, uint64_t{1} << 30);
  EXPECT_EQ(c.devices[2].memory_bytes, uint64_t{3} << 30);
  EXPECT_EQ(c.devices[2].sm_percent, 40);
  EXPECT_EQ(mentions(c, "using CUDA_DEVICE_MEMORY_LIMIT_1='1g' instead"), 1u);
  EXPECT_EQ(mentions(c, "using SLICELAB_MEMORY_LIMIT='3g' for device 2"), 1u);
  EXPECT_EQ(mentions(c, "using SLICELAB_SM_LIMIT='40' for device 2"), 1u);
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
