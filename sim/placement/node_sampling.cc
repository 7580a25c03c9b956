#include "sim/placement/node_sampling.h"

#include <algorithm>

namespace slicelab {

uint32_t num_feasible_nodes_to_find(int percentage, uint32_t num_all_nodes) {
  constexpr uint32_t kMinFeasibleNodesToFind = 100;
  constexpr int32_t kMinFeasibleNodesPercentageToFind = 5;
  if (num_all_nodes < kMinFeasibleNodesToFind) return num_all_nodes;
  // Go's int32 arithmetic: numAllNodes/125 truncates, numAllNodes*percentage/100 too.
  auto pct = static_cast<int64_t>(percentage);
  if (pct == 0) {
    pct = 50 - static_cast<int64_t>(num_all_nodes) / 125;
    pct = std::max<int64_t>(pct, kMinFeasibleNodesPercentageToFind);
  }
  const int64_t n = static_cast<int64_t>(num_all_nodes) * pct / 100;
  if (n < kMinFeasibleNodesToFind) return kMinFeasibleNodesToFind;
  return static_cast<uint32_t>(n);
}

void NodeSampling::sample(std::span<const NodeId> scanned, std::vector<NodeId>& feasible,
                          size_t node_count, bool has_scoring) {
  const size_t all = scanned.size();
  if (all == 0 || node_count == 0) return;
  const size_t want =
      has_scoring ? num_feasible_nodes_to_find(percentage_, static_cast<uint32_t>(all)) : 1;
  mark_.resize(node_count);
  for (const NodeId n : feasible) mark_[n] = 1;
  kept_.clear();
  size_t rejected = 0;
  for (size_t i = 0; i < all; ++i) {
    const NodeId n = scanned[(next_start_ + i) % all];
    if (!mark_[n]) {
      ++rejected;
    } else if (kept_.size() < want) {
      kept_.push_back(n);
    } else {
      break;  // one feasible node more than wanted: kube-scheduler cancels the search here
    }
  }
  for (const NodeId n : feasible) mark_[n] = 0;
  next_start_ = (next_start_ + kept_.size() + rejected) % node_count;
  feasible.swap(kept_);
}

}  // namespace slicelab
