#include "sim/placement/placement_policy.h"

#include <fmt/format.h>

#include <numeric>

namespace slicelab {

PlacementPolicy::PlacementPolicy(std::vector<std::unique_ptr<Filter>> filters,
                                 std::vector<WeightedScorer> scorers,
                                 std::unique_ptr<DevicePicker> picker)
    : filters_(std::move(filters)), scorers_(std::move(scorers)), picker_(std::move(picker)) {}

std::optional<NodeId> PlacementPolicy::place(const ClusterState& cluster, const PodRequest& req,
                                             Rng& rng, std::span<GpuId> gpus_out,
                                             std::span<const NodeId> only) {
  if (only.empty()) {
    candidates_.resize(cluster.node_count());
    std::iota(candidates_.begin(), candidates_.end(), NodeId{0});
  } else {
    candidates_.assign(only.begin(), only.end());
  }
  for (const auto& f : filters_) {
    f->filter(cluster, req, candidates_);
    if (candidates_.empty()) return std::nullopt;
  }
  if (scorers_.empty()) {
    for (const NodeId n : candidates_)
      if (picker_->pick(cluster, req, n, rng, gpus_out)) return n;
    return std::nullopt;
  }
  const size_t n = candidates_.size();
  total_.assign(n, 0.0);
  scratch_.resize(n);
  for (const auto& ws : scorers_) {
    ws.scorer->score(cluster, req, candidates_, rng, scratch_);
    for (size_t i = 0; i < n; ++i) total_[i] += ws.weight * scratch_[i];
  }
  size_t best = 0;
  for (size_t i = 1; i < n; ++i)
    if (total_[i] > total_[best]) best = i;
  if (picker_->pick(cluster, req, candidates_[best], rng, gpus_out)) return candidates_[best];
  return std::nullopt;
}

std::string PlacementPolicy::describe() const {
  std::vector<std::string> f, s;
  for (const auto& x : filters_) f.emplace_back(x->name());
  for (const auto& x : scorers_) s.push_back(fmt::format("{}:{:g}", x.scorer->name(), x.weight));
  return fmt::format("filters=[{}] scorers=[{}] picker={}", fmt::join(f, ","), fmt::join(s, ","),
                     picker_->name());
}

}  // namespace slicelab
