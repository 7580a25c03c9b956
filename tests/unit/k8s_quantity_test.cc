// Pins down Kubernetes quantity and Go duration parsing: every suffix against values computed
// by hand from apimachinery's definitions, rounding up, and the "did you mean" errors.
#include "workloads/go_duration.h"
#include "workloads/kube/kube_quantity.h"

#include <gtest/gtest.h>

#include <string>

namespace slicelab {
namespace {

int64_t cpu(const std::string& text) {
  std::string error;
  const auto v = parse_cpu_milli(text, error);
  EXPECT_TRUE(v.has_value()) << text << ": " << error;
  return v.value_or(-1);
}

int64_t mib(const std::string& text) {
  std::string error;
  const auto v = parse_memory_mib(text, error);
  EXPECT_TRUE(v.has_value()) << text << ": " << error;
  return v.value_or(-1);
}

std::string quantity_error(const std::string& text) {
  std::string error;
  EXPECT_FALSE(parse_quantity(text, error).has_value()) << text;
  return error;
}

double seconds(const std::string& text) {
  std::string error;
  const auto v = parse_go_duration(text, error);
  EXPECT_TRUE(v.has_value()) << text << ": " << error;
  return v.value_or(-1);
}

std::string duration_error(const std::string& text) {
  std::string error;
  EXPECT_FALSE(parse_go_duration(text, error).has_value()) << text;
  return error;
}

TEST(K8sQuantity, CpuAsKubernetesReadsIt) {
  EXPECT_EQ(cpu("4"), 4000);
  EXPECT_EQ(cpu("4000m"), 4000);
  EXPECT_EQ(cpu("500m"), 500);
  EXPECT_EQ(cpu("0.5"), 500);
  EXPECT_EQ(cpu(".25"), 250);
  EXPECT_EQ(cpu("+2"), 2000);
  EXPECT_EQ(cpu("0"), 0);
  // MilliValue rounds up: 1.0005 cores is 1000.5 milli, so 1001; 1 nano-core is 1 milli.
  EXPECT_EQ(cpu("1.0005"), 1001);
  EXPECT_EQ(cpu("1n"), 1);
  EXPECT_EQ(cpu("1500000u"), 1500);
  EXPECT_EQ(cpu("2k"), 2'000'000);
  EXPECT_EQ(cpu("1e3"), 1'000'000);
  EXPECT_EQ(cpu("5E-1"), 500);
  EXPECT_EQ(cpu("0.000500"), 1);  // half a milli, rounded up
}

TEST(K8sQuantity, MemoryEveryBinaryAndDecimalSuffix) {
  EXPECT_EQ(mib("10Gi"), 10240);
  EXPECT_EQ(mib("10240Mi"), 10240);
  EXPECT_EQ(mib("1Ti"), 1'048'576);
  EXPECT_EQ(mib("1Pi"), int64_t{1} << 30);
  EXPECT_EQ(mib("1Ei"), int64_t{1} << 40);
  EXPECT_EQ(mib("1024Ki"), 1);
  EXPECT_EQ(mib("1Ki"), 1);  // rounded up to whole MiB
  // 10G = 10^10 bytes = 9536.74 MiB, up to 9537; 10e9 is the same number.
  EXPECT_EQ(mib("10G"), 9537);
  EXPECT_EQ(mib("10e9"), 9537);
  EXPECT_EQ(mib("1M"), 1);  // 10^6 bytes < 1 MiB
  EXPECT_EQ(mib("2000k"), 2);
  EXPECT_EQ(mib("1T"), 953'675);  // 10^12 / 2^20 = 953674.3
  EXPECT_EQ(mib("1P"), 953'674'317);
  EXPECT_EQ(mib("1E"), 953'674'316'407);
  EXPECT_EQ(mib("1048576"), 1);  // a bare number is bytes
  EXPECT_EQ(mib("1.5Gi"), 1536);
  EXPECT_EQ(mib("0"), 0);
}

TEST(K8sQuantity, TooLargeOrNegativeIsAnError) {
  std::string error;
  EXPECT_FALSE(parse_memory_mib("1e30", error).has_value());
  EXPECT_NE(error.find("too large"), std::string::npos) << error;
  EXPECT_FALSE(parse_cpu_milli("-1", error).has_value());
  EXPECT_NE(error.find("negative"), std::string::npos) << error;
  EXPECT_FALSE(parse_cpu_milli("1e999", error).has_value());
  EXPECT_FALSE(parse_cpu_milli("1234567890123456789", error).has_value());
  EXPECT_NE(error.find("18 significant digits"), std::string::npos) << error;
}

TEST(K8sQuantity, AlmostRightUnitsGetDidYouMean) {
  EXPECT_EQ(quantity_error("10GB"),
            "unknown unit 'GB' in '10GB' (did you mean 'Gi' (2^30) or 'G' (10^9)?)");
  EXPECT_EQ(quantity_error("10gi"), "unknown unit 'gi' in '10gi' (did you mean 'Gi' (2^30)?)");
  EXPECT_EQ(quantity_error("512MiB"), "unknown unit 'MiB' in '512MiB' (did you mean 'Mi' (2^20)?)");
  EXPECT_EQ(quantity_error("1K"),
            "unknown unit 'K' in '1K' (did you mean 'Ki' (2^10) or 'k' (10^3)?)");
  EXPECT_NE(quantity_error("4 cores").find("unknown unit ' cores'"), std::string::npos);
  EXPECT_NE(quantity_error("4x").find("(units: Ki Mi"), std::string::npos);
  EXPECT_EQ(quantity_error("abc"), "'abc' has no digits");
  EXPECT_EQ(quantity_error(""), "an empty quantity");
  EXPECT_EQ(quantity_error("1.2.3"),
            "unknown unit '.3' in '1.2.3' (units: Ki Mi Gi Ti Pi Ei, "
            "n u m k M G T P E, or an exponent such as e9)");
}

TEST(K8sQuantity, GoDurations) {
  EXPECT_DOUBLE_EQ(seconds("1h30m"), 5400);
  EXPECT_DOUBLE_EQ(seconds("300ms"), 0.3);
  EXPECT_DOUBLE_EQ(seconds("1.5h"), 5400);
  EXPECT_DOUBLE_EQ(seconds("2h45m30.5s"), 9930.5);
  EXPECT_DOUBLE_EQ(seconds("90s"), 90);
  EXPECT_DOUBLE_EQ(seconds("1d12h"), 129600);
  EXPECT_DOUBLE_EQ(seconds("1500us"), 0.0015);
  EXPECT_DOUBLE_EQ(seconds("1500\xc2\xb5s"), 0.0015);
  EXPECT_DOUBLE_EQ(seconds("10ns"), 1e-8);
  EXPECT_DOUBLE_EQ(seconds("0"), 0);
}

TEST(K8sQuantity, BadDurationsNameTheirProblem) {
  EXPECT_EQ(duration_error("90"),
            "unknown unit '' in duration '90' (missing unit after 90: ns, "
            "us, ms, s, m, h or d)");
  EXPECT_EQ(duration_error("5mins"), "unknown unit 'mins' in duration '5mins' (did you mean 'm'?)");
  EXPECT_EQ(duration_error("2hours"),
            "unknown unit 'hours' in duration '2hours' (did you mean 'h'?)");
  EXPECT_EQ(duration_error("3M"),
            "unknown unit 'M' in duration '3M' (did you mean 'm' (minutes)?)");
  EXPECT_EQ(duration_error("-1s"), "'-1s' is negative");
  EXPECT_EQ(duration_error("h"),
            "'h' is not a duration (expected a number and a unit, e.g. 1h30m, 90s, 300ms)");
  EXPECT_EQ(duration_error(""), "an empty duration");
}

}  // namespace
}  // namespace slicelab
