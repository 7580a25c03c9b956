// Pins down ArrivalOrder: a workload sorted by arrival is its own order and keeps no array; an
// unsorted one is ordered by arrival with equal times in workload order.
#include "sim/engine/arrival_order.h"

#include <gtest/gtest.h>

#include <vector>

namespace slicelab {
namespace {

std::vector<PodSpec> arriving_at(const std::vector<double>& times) {
  std::vector<PodSpec> pods(times.size());
  for (size_t i = 0; i < times.size(); ++i) pods[i].arrival_s = times[i];
  return pods;
}

std::vector<uint32_t> order_of(const ArrivalOrder& order, size_t n) {
  std::vector<uint32_t> out;
  for (size_t k = 0; k < n; ++k) out.push_back(order[k]);
  return out;
}

TEST(SimArrivalOrder, ASortedWorkloadIsItsOwnOrderWithoutAnArray) {
  // Equal times (5, 5) count as sorted.
  const auto pods = arriving_at({0, 5, 5, 9});
  ArrivalOrder order;
  order.prepare(pods, pods.size());
  EXPECT_FALSE(order.reordered());
  EXPECT_EQ(order_of(order, pods.size()), (std::vector<uint32_t>{0, 1, 2, 3}));
}

TEST(SimArrivalOrder, AnUnsortedWorkloadIsSortedStably) {
  // Times 7, 3, 7, 1, 3: 1 (pod 3), then the 3s in workload order (pods 1, 4), then the 7s
  // (pods 0, 2).
  const auto pods = arriving_at({7, 3, 7, 1, 3});
  ArrivalOrder order;
  order.prepare(pods, pods.size());
  EXPECT_TRUE(order.reordered());
  EXPECT_EQ(order_of(order, pods.size()), (std::vector<uint32_t>{3, 1, 4, 0, 2}));
  // Prepared again on a sorted workload, it drops the array.
  order.prepare(arriving_at({1, 2}), 2);
  EXPECT_FALSE(order.reordered());
  EXPECT_EQ(order_of(order, 2), (std::vector<uint32_t>{0, 1}));
}

// Pods after the arriving ones (services' replica pools) keep their places, whatever their
// arrival times: they never arrive by themselves.
TEST(SimArrivalOrder, PodsAfterTheArrivingOnesKeepTheirPlaces) {
  const auto pods = arriving_at({5, 2, 0, 0});
  ArrivalOrder order;
  order.prepare(pods, 2);
  EXPECT_EQ(order_of(order, pods.size()), (std::vector<uint32_t>{1, 0, 2, 3}));
  order.prepare(arriving_at({1, 2, 0}), 2);
  EXPECT_FALSE(order.reordered());
}

}  // namespace
}  // namespace slicelab
