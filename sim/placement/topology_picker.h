// The "topology" device picker: NVIDIA's best-effort rule for multi-GPU pods (the free set
// with the highest total pair score) and HAMi's for one GPU (the worst-connected free card).
#pragma once

#include "sim/placement/device_pickers.h"
#include "sim/placement/plugins.h"

namespace slicelab {

class TopologyDevicePicker final : public DevicePicker {
 public:
  std::string_view name() const override { return "topology"; }
  // Nodes without a topology get the binpack picker's choice.
  bool pick(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> out) const override;

 private:
  OrderedDevicePicker fallback_{OrderedDevicePicker::Order::kFullestFirst};
};

}  // namespace slicelab
