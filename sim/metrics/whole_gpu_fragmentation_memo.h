// FGD's node fragmentation of nodes whose GPUs are each wholly free or wholly taken (every node
// under whole cards), remembered by what decides it, so a run's curve costs a lookup per change.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "sim/metrics/fragmentation.h"

namespace slicelab {

// Contract: operator() returns exactly node_fragmentation(target, cpu_free, model, free_milli).
// Where every GPU's free milli is 0 or 1000, that value depends only on the node's model, its
// GPU count, how many GPUs are free and which shapes' CPU the node has (the free milli's total,
// each shape's fitting GPUs and their too-small remainder follow from the counts), and it is
// kept under those; other nodes, targets of more than kMaxShapes shapes and keys past a full
// table are computed every time. `target` must outlive the memo and not change.
class WholeGpuFragmentationMemo {
 public:
  static constexpr size_t kMaxShapes = 16;
  static constexpr size_t kSlots = 1024;

  explicit WholeGpuFragmentationMemo(const TargetWorkload& target) : target_(target) {}

  double operator()(int64_t cpu_free, uint16_t model, std::span<const int> free_milli);

  size_t remembered() const { return used_; }

 private:
  static constexpr uint64_t kEmpty = UINT64_MAX;
  struct Slot {
    uint64_t key = kEmpty;
    double value = 0;
  };
  const TargetWorkload& target_;
  std::array<Slot, kSlots> slots_{};
  size_t used_ = 0;
};

}  // namespace slicelab
