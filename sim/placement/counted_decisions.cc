// PlacementPolicy's decisions from the feasible-count tree: the random and the gpu-packing scorer
// alone, for pods of whole GPUs or none, decided as select_host would decide on the full pass's
// candidates (docs/placement.md, "Indexes"), with the same draws.
#include <algorithm>
#include <bit>

#include "sim/placement/paper_scorers.h"
#include "sim/placement/placement_policy.h"
#include "sim/placement/scorers.h"

namespace slicelab {

void PlacementPolicy::classify_counted() {
  // Only where the index lists the candidates (the filters are the three it knows), with one
  // scorer: a lone scorer's scores are the totals whatever its weight.
  if (indexed_ != Indexed::kCandidates || scorers_.size() != 1) return;
  const Scorer* only = scorers_.front().scorer.get();
  // The random scorer draws the candidate that scores 100, the others 0: select_host takes the
  // drawn one under any tie rule.
  if (dynamic_cast<const RandomScorer*>(only) != nullptr) indexed_ = Indexed::kRandom;
  // gpu-packing's tiers are per node class (below); its ties need the random or the first rule.
  if (dynamic_cast<const GpuPackingScorer*>(only) != nullptr && has_capacity_ &&
      tie_break_ != TieBreak::kNodeOrder)
    indexed_ = Indexed::kPacking;
}

bool PlacementPolicy::countable(const SchedulingCycle& cycle) const {
  // The counts know "enough idle GPUs", the gpu-capacity test for whole GPUs only.
  const PodRequest& req = cycle.req;
  return !has_capacity_ || req.gpu_count == 0 || req.claim_units == cycle.cluster.capacity_units();
}

FeasibleCountTree::Query PlacementPolicy::count_query(const PodRequest& req) const {
  FeasibleCountTree::Query q;
  if (has_resources_) {
    q.cpu = req.cpu_milli;
    q.memory = req.memory_mib;
  }
  if (has_capacity_) q.idle_gpus = req.gpu_count;
  if (has_model_ && req.gpu_count > 0) {
    q.model = true;
    q.model_mask = req.model_mask;
    q.gpu_memory_mib = req.gpu_memory_mib;
    q.gpu_count = req.gpu_count;
  }
  return q;
}

std::optional<NodeId> PlacementPolicy::random_select(SchedulingCycle& cycle) {
  const ClusterState& cluster = cycle.cluster;
  const PodRequest& req = cycle.req;
  counts_.sync(cluster);
  const FeasibleCountTree::Query q = count_query(req);
  auto feasible = [&](NodeId n) { return indexed_feasible(cluster, req, n); };
  const uint32_t total = counts_.count(q, feasible);
  if (total == 0) return std::nullopt;
  // RandomScorer's one draw over the candidate list, and select_host's pick: the drawn one.
  const auto k = static_cast<uint32_t>(cycle.rng.below(total));
  // select_host under node-order draws the run's node permutation at its first cycle, after the
  // scorer's draw: the same draws here, though the drawn node wins under any order.
  if (tie_break_ == TieBreak::kNodeOrder) node_ranks(cycle);
  return counts_.kth(q, k, feasible);
}

std::optional<NodeId> PlacementPolicy::packing_select(SchedulingCycle& cycle) {
  const ClusterState& cluster = cycle.cluster;
  const PodRequest& req = cycle.req;
  counts_.sync(cluster);
  FeasibleCountTree::Query q = count_query(req);
  auto feasible = [&](NodeId n) { return indexed_feasible(cluster, req, n); };
  if (req.gpu_count > 0) {
    // GpuPackingScorer for whole GPUs: a feasible node with a GPU in use takes the pod's GPUs
    // among its idle ones, all fully free, and scores max(50 - GPU count, 33); a GPU-idle node
    // of G GPUs scores max(33 - G, G). The maxima are the classes with the top score.
    const int64_t count = req.gpu_count;
    q.every = false;
    int64_t top = -1;
    FeasibleCountTree::Query one = q;
    one.busy = true;
    if (counts_.count(one, feasible) > 0) {
      top = std::max<int64_t>(kMaxNodeScore / 2 - count, kMaxNodeScore / 3);
      q.busy = true;
    }
    one.busy = false;
    for (uint64_t sizes = counts_.gpu_sizes(); sizes != 0; sizes &= sizes - 1) {
      const int size = std::countr_zero(sizes) + 1;
      if (size < count) continue;
      one.idle_sizes = uint64_t{1} << (size - 1);
      if (counts_.count(one, feasible) == 0) continue;
      const int64_t score = std::max<int64_t>(kMaxNodeScore / 3 - size, size);
      if (score > top) {
        top = score;
        q.busy = false;
        q.idle_sizes = 0;
      }
      if (score == top) q.idle_sizes |= one.idle_sizes;
    }
    if (top < 0) return std::nullopt;
  }
  // CPU-only pods score 0 everywhere: every feasible node ties.
  const uint32_t ties = counts_.count(q, feasible);
  if (ties == 0) return std::nullopt;
  // select_host: uniform among the maxima (one draw, when more than one), or the first.
  const uint32_t k = tie_break_ == TieBreak::kRandom && ties > 1
                         ? static_cast<uint32_t>(cycle.rng.below(ties))
                         : 0;
  return counts_.kth(q, k, feasible);
}

}  // namespace slicelab
