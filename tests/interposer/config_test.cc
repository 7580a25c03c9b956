// The interposer's environment parsing: sizes, percentages, precedence of SLICELAB_* over HAMi
// names and of per-device over global variables, and one warning per bad value.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "backends/interposer/config.h"

namespace slicelab::interposer {
namespace {

Config load(const std::map<std::string, std::string>& env) {
  return load_config([&](const char* n) -> const char* {
    auto it = env.find(n);
    return it == env.end() ? nullptr : it->second.c_str();
  });
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

}  // namespace
}  // namespace slicelab::interposer
