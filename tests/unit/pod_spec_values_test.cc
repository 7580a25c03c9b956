// Pins down the compact PodSpec fields: shared texts, model lists and names compare and print as
// the strings and vectors they replace, equal values share one copy, and an absent SLO is absent.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <utility>
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
  EXPECT_TRUE(x.written().empty());  // given as a list: no spelling
  // The same models spelled differently by a trace: equal lists (placement), two spellings
  // (FGD's target workload), so not one shared copy; the same spelling again is shared.
  const ModelList once = shared.models({"G2", "T4"}, "G2|T4"),
                  twice = shared.models({"G2", "T4"}, "G2|T4|T4"),
                  again = shared.models({"G2", "T4"}, "G2|T4|T4");
  EXPECT_EQ(once, twice);
  EXPECT_EQ(once.written(), "G2|T4");
  EXPECT_EQ(twice.written(), "G2|T4|T4");
  EXPECT_NE(once.begin(), twice.begin());
  EXPECT_NE(x.begin(), once.begin());
  EXPECT_EQ(twice.begin(), again.begin());
}

TEST(WorkloadPodSpecValues, PodNameKeepsShortNamesInlineAndLongOnesWhole) {
  const PodName none, short_name("frac-123456"), full(std::string(15, 'x'));
  const std::string long_text = "alibaba-pai-job-0123456789abcdef-worker-17";
  const PodName long_name(long_text);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none, "");
  EXPECT_EQ(short_name, "frac-123456");
  EXPECT_EQ(short_name.size(), 11U);
  EXPECT_EQ(full.view(), std::string(15, 'x'));  // the longest inline name
  EXPECT_EQ(long_name, long_text);
  EXPECT_EQ(long_name.size(), long_text.size());
  EXPECT_EQ(fmt::format("<{}>", long_name), "<" + long_text + ">");
  EXPECT_TRUE(long_name < short_name);  // ordered as their text: 'a' before 'f'
  EXPECT_FALSE(short_name < long_name);

  // Copies are deep and independent; a moved-from name is empty, not dangling.
  PodName copy = long_name;
  EXPECT_NE(copy.view().data(), long_name.view().data());
  PodName moved = std::move(copy);
  EXPECT_EQ(moved, long_text);
  EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is pinned
  moved = short_name;
  EXPECT_EQ(moved, "frac-123456");
  moved = long_name;
  const PodName& same = moved;
  moved = same;  // self-assignment keeps the name
  EXPECT_EQ(moved, long_text);

  // Move-assigning onto a long name frees its copy (ASan would see a leak) and empties the source.
  PodName source("frac-9");
  moved = std::move(source);
  EXPECT_EQ(moved, "frac-9");
  EXPECT_TRUE(source.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is pinned

  // set() in place: short over short, long over short, short over long, and a name's own text
  // (inline, and a part of its heap copy).
  PodName named("frac-1");
  named.set("two-22");
  EXPECT_EQ(named, "two-22");
  named.set(long_text);
  EXPECT_EQ(named, long_text);
  named.set(named.view().substr(4, 20));
  EXPECT_EQ(named, long_text.substr(4, 20));
  named.set("x");
  EXPECT_EQ(named, "x");
  named.set("frac-123456");
  named.set(named.view().substr(5));
  EXPECT_EQ(named, "123456");
  named.set("");
  EXPECT_TRUE(named.empty());
}

TEST(WorkloadPodSpecValues, SharedValueCountsItsOwnersAcrossThreads) {
  const SharedValue<std::string> one(std::string("LS"));
  {
    std::vector<SharedValue<std::string>> copies(1000, one);
    EXPECT_EQ(one.use_count(), 1001U);
    std::thread a([&] {
      for (size_t i = 0; i < 500; ++i) copies[i].reset();
    });
    std::thread b([&] {
      for (size_t i = 500; i < 1000; ++i) copies[i] = SharedValue<std::string>(one);
    });
    a.join();
    b.join();
    EXPECT_EQ(one.use_count(), 501U);
  }
  EXPECT_EQ(one.use_count(), 1U);
  EXPECT_EQ(*one, "LS");
  SharedValue<std::string> none;
  EXPECT_FALSE(none);
  EXPECT_EQ(none.get(), nullptr);
  EXPECT_EQ(none.use_count(), 0U);
}

TEST(WorkloadPodSpecValues, SloIsSharedAndAbsentWhenNoLimitIsSet) {
  PodSpec pod;
  EXPECT_FALSE(pod.has_slo());
  EXPECT_FALSE(pod.slo_max_queue_s().has_value());
  pod.set_slo(std::nullopt, std::nullopt);
  EXPECT_FALSE(pod.has_slo());  // both limits absent: nothing held
  pod.set_slo(120, std::nullopt);
  EXPECT_TRUE(pod.has_slo());
  EXPECT_EQ(pod.slo_max_queue_s(), 120.0);
  EXPECT_FALSE(pod.slo_max_jct_s().has_value());
  const PodSpec copy = pod;
  EXPECT_EQ(copy.slo.get(), pod.slo.get());  // a shape's pods share one SLO
  pod.set_slo(pod.slo_max_queue_s(), 3600);
  EXPECT_EQ(pod.slo_max_jct_s(), 3600.0);
  EXPECT_FALSE(copy.slo_max_jct_s().has_value());  // the copy keeps its own
}

}  // namespace
}  // namespace slicelab
