// Built-in device pickers, choosing the GPUs on the chosen node: binpack (fullest GPU that
// fits), spread (emptiest), first (lowest index) and random. Ties go to the lower GPU index.
#pragma once

#include "sim/placement/plugins.h"

namespace slicelab {

// A pod that takes whole GPUs gets the lowest-index idle ones under every order (the FGD
// simulator's AllocateExclusiveGpuId): among equally free GPUs only the index can decide, and a
// random choice there would only add noise. The order decides for shares of a GPU.
class OrderedDevicePicker final : public DevicePicker {
 public:
  enum class Order { kFullestFirst, kEmptiestFirst, kLowestIndex, kRandom };
  explicit OrderedDevicePicker(Order order) : order_(order) {}

  std::string_view name() const override;
  bool pick(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> out) const override;

 private:
  Order order_;
};

}  // namespace slicelab
