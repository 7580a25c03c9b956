// Pins down the compact PodSpec fields: shared texts and model lists compare and print as the
// strings and vectors they replace, equal values share one copy, and an absent SLO is absent.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "workloads/pod_spec.h"
#include "workloads/pod_value_interner.h"

namespace slicelab {
namespace {

TEST(WorkloadPodSpecValues, SharedTextActsAsItsString) {
  const SharedText none, empty(""), infer("inference");
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(none, empty);
  EXPECT_EQ(infer, "inference");
  EXPECT_FALSE(infer == "infer");
  EXPECT_EQ(fmt::format("[{}]", infer), "[inference]");
  EXPECT_EQ(infer.str(), std::string("inference"));
  const SharedText copy = infer;
  EXPECT_EQ(copy.view().data(), infer.view().data());  // one copy of the text
}

TEST(WorkloadPodSpecValues, ModelListActsAsItsVector) {
  const ModelList none, two(std::vector<std::string>{"T4", "L4"});
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.size(), 0U);
  EXPECT_EQ(none.begin(), none.end());
  EXPECT_EQ(two.size(), 2U);
  EXPECT_EQ(two[1], "L4");
  EXPECT_EQ(two, (std::vector<std::string>{"T4", "L4"}));
  EXPECT_FALSE(two == (std::vector<std::string>{"T4"}));
  EXPECT_EQ(two.to_vector(), (std::vector<std::string>{"T4", "L4"}));
}

TEST(WorkloadPodSpecValues, OptionalSecondsAbsentIsNotZero) {
  const OptionalSeconds absent, zero(0.0), from_nullopt(std::optional<double>{});
  EXPECT_FALSE(absent.has_value());
  EXPECT_FALSE(from_nullopt);
  EXPECT_TRUE(zero.has_value());
  EXPECT_EQ(*zero, 0.0);
  EXPECT_EQ(absent.value_or(7.5), 7.5);
  EXPECT_EQ(absent, from_nullopt);
  EXPECT_FALSE(absent == zero);
  EXPECT_EQ(OptionalSeconds(std::optional<double>(120.0)), 120.0);
}

TEST(WorkloadPodSpecValues, InternerSharesEqualValues) {
  PodValueInterner shared;
  const SharedText a = shared.text("LS"), b = shared.text(std::string("LS")), c = shared.text("BE");
  EXPECT_EQ(a.view().data(), b.view().data());
  EXPECT_NE(a.view().data(), c.view().data());
  const ModelList x = shared.models({"G2", "T4"}), y = shared.models({"G2", "T4"});
  EXPECT_EQ(x.begin(), y.begin());
  EXPECT_EQ(x, (std::vector<std::string>{"G2", "T4"}));
}

}  // namespace
}  // namespace slicelab
