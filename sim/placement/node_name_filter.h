// Pods pinned to a named node, as kube-scheduler's NodeName plugin keeps a pod whose
// spec.nodeName is set: the snapshot of a running cluster (docs/kubernetes-import.md).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/placement/plugins.h"

namespace slicelab {

// One running pod of a snapshot: the index of the pod in the run's workload and its node.
struct PinnedPod {
  uint32_t pod = 0;
  NodeId node = 0;
};

// A run plugin (added only when the run has pinned pods): a pinned pod passes on its own node
// only, every other pod is left alone. Static per pod, so monotone as a Filter must be. The
// as-recorded policy's recorded-node filter is the same rule over workload.placements, under its
// registered name.
class NodeNameFilter final : public Filter {
 public:
  NodeNameFilter(std::span<const PinnedPod> pinned, size_t pod_count,
                 std::string_view name = "node-name");
  std::string_view name() const override { return name_; }
  void filter(const SchedulingCycle& cycle, std::vector<NodeId>& candidates) const override;
  Rejection why_rejected(const SchedulingCycle& cycle, NodeId node) const override;

 private:
  static constexpr NodeId kAnyNode = UINT32_MAX;
  std::vector<NodeId> node_of_;  // per pod of the run; kAnyNode when not pinned
  std::string_view name_;        // a literal: the registry's or the snapshot's
};

}  // namespace slicelab
