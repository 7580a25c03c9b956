// Pins down BoundGpus: every pod gets room for its GPUs in pod order, a bind writes GPU indices
// within the node, and take() packs the GPUs of the pods that hold them, in pod order.
#include "sim/engine/bound_gpus.h"

#include <gtest/gtest.h>

#include <vector>

namespace slicelab {
namespace {

std::vector<PodSpec> with_gpu_counts(const std::vector<int>& counts) {
  std::vector<PodSpec> pods(counts.size());
  for (size_t i = 0; i < counts.size(); ++i) pods[i].gpu_count = counts[i];
  return pods;
}

TEST(SimBoundGpus, RoomForEachPodsGpusInPodOrder) {
  const auto pods = with_gpu_counts({2, 0, 1, 4});
  std::vector<PodOutcome> out(pods.size());
  BoundGpus bound;
  bound.prepare(pods, out);
  EXPECT_EQ(out[0].gpu_begin, 0U);
  EXPECT_EQ(out[1].gpu_begin, 2U);
  EXPECT_EQ(out[2].gpu_begin, 2U);
  EXPECT_EQ(out[3].gpu_begin, 3U);
  for (const PodOutcome& o : out) EXPECT_EQ(o.gpu_count, 0);
}

TEST(SimBoundGpus, TakePacksTheGpusOfPodsThatHoldThemInPodOrder) {
  // Pods 0..4 ask 2, 1, 3, 0 and 2 GPUs. Bound, in this order: pod 2 on GPUs 9, 10, 11 of the
  // node whose first GPU is 8; pod 0 on 1, 2 (first 0); pod 4 on 4, 6 (first 4); pod 1 on 3
  // (first 0), which then fails. Pod 3 runs without GPUs; pod 1 fails, so it holds none.
  const auto pods = with_gpu_counts({2, 1, 3, 0, 2});
  std::vector<PodOutcome> out(pods.size());
  BoundGpus bound;
  bound.prepare(pods, out);
  auto bind = [&](uint32_t p, int32_t node, GpuId first, std::vector<GpuId> gpus) {
    out[p].node = node;
    out[p].status = PodStatus::kCompleted;
    bound.bind(out[p], first, gpus);
  };
  bind(2, 2, 8, {9, 10, 11});
  bind(0, 0, 0, {1, 2});
  bind(4, 1, 4, {4, 6});
  bind(1, 0, 0, {3});
  out[1].status = PodStatus::kFailed;
  out[3].node = 0;
  out[3].status = PodStatus::kRunning;
  const std::vector<uint16_t> gpus = bound.take(out);
  // Pod 0: 1, 2; pod 2: 1, 2, 3; pod 4: 0, 2.
  EXPECT_EQ(gpus, (std::vector<uint16_t>{1, 2, 1, 2, 3, 0, 2}));
  const std::vector<uint32_t> begin{0, 2, 2, 5, 5};
  const std::vector<uint8_t> count{2, 0, 3, 0, 2};
  for (size_t p = 0; p < out.size(); ++p) {
    EXPECT_EQ(out[p].gpu_begin, begin[p]) << p;
    EXPECT_EQ(out[p].gpu_count, count[p]) << p;
  }
}

TEST(SimBoundGpus, APodNeverBoundHoldsNoGpus) {
  // Pod 0 never placed (node -1); pod 1 placed on GPU 5 of a node whose first GPU is 4.
  const auto pods = with_gpu_counts({3, 1});
  std::vector<PodOutcome> out(pods.size());
  BoundGpus bound;
  bound.prepare(pods, out);
  out[1].node = 1;
  out[1].status = PodStatus::kRunning;
  bound.bind(out[1], 4, std::vector<GpuId>{5});
  EXPECT_EQ(bound.take(out), (std::vector<uint16_t>{1}));
  EXPECT_EQ(out[0].gpu_count, 0);
  EXPECT_EQ(out[1].gpu_begin, 0U);
  EXPECT_EQ(out[1].gpu_count, 1);
}

}  // namespace
}  // namespace slicelab
