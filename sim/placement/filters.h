// Built-in filters: the node's free CPU and memory, its GPU model and per-GPU memory, and
// whether enough of its GPUs have room under the sharing mode's capacity units.
#pragma once

#include "sim/placement/plugins.h"

namespace slicelab {

class ResourceFilter final : public Filter {
 public:
  std::string_view name() const override { return "resources"; }
  void filter(const SchedulingCycle& cycle, std::vector<NodeId>& candidates) const override;
  Rejection why_rejected(const SchedulingCycle& cycle, NodeId node) const override;
};

// Allowed GPU models, per-GPU memory (a pod never fits a GPU smaller than its peak) and the
// node's GPU count: all static, so the framework caches it per pod shape.
class GpuModelFilter final : public Filter {
 public:
  std::string_view name() const override { return "gpu-model"; }
  void filter(const SchedulingCycle& cycle, std::vector<NodeId>& candidates) const override;
  StaticPart static_part() const override { return StaticPart::kWhole; }
  void static_filter(const ClusterState& cluster, const StaticShape& shape,
                     std::vector<NodeId>& candidates) const override;
  Rejection why_rejected(const SchedulingCycle& cycle, NodeId node) const override;
};

class GpuCapacityFilter final : public Filter {
 public:
  std::string_view name() const override { return "gpu-capacity"; }
  void filter(const SchedulingCycle& cycle, std::vector<NodeId>& candidates) const override;
  Rejection why_rejected(const SchedulingCycle& cycle, NodeId node) const override;
};

}  // namespace slicelab
