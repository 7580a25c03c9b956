#include "sim/placement/node_name_filter.h"

#include <algorithm>

namespace slicelab {

NodeNameFilter::NodeNameFilter(std::span<const PinnedPod> pinned, size_t pod_count,
                               std::string_view name)
    : node_of_(pod_count, kAnyNode), name_(name) {
  for (const PinnedPod& p : pinned) node_of_[p.pod] = p.node;
}

void NodeNameFilter::filter(const SchedulingCycle& cycle, std::vector<NodeId>& candidates) const {
  if (cycle.pod >= node_of_.size()) return;
  const NodeId want = node_of_[cycle.pod];
  if (want == kAnyNode) return;
  const bool there = std::find(candidates.begin(), candidates.end(), want) != candidates.end();
  candidates.clear();
  if (there) candidates.push_back(want);
}

Rejection NodeNameFilter::why_rejected(const SchedulingCycle& cycle, NodeId /*node*/) const {
  return {"the pod is pinned to another node",
          "spec.nodeName: " + cycle.cluster.node_name(node_of_[cycle.pod])};
}

}  // namespace slicelab
