// Built-in device pickers, choosing the GPUs on the chosen node: binpack (fullest GPU that
// fits), spread (emptiest), first (lowest index) and random. Ties go to the lower GPU index.
#pragma once

#include "sim/placement/plugins.h"

namespace slicelab {

class OrderedDevicePicker final : public DevicePicker {
 public:
  enum class Order { kFullestFirst, kEmptiestFirst, kLowestIndex, kRandom };
  explicit OrderedDevicePicker(Order order) : order_(order) {}

  std::string_view name() const override;
  bool pick(const ClusterState& cluster, const PodRequest& req, NodeId node, Rng& rng,
            std::span<GpuId> out) const override;

 private:
  Order order_;
};

}  // namespace slicelab
