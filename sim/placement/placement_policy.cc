#include "sim/placement/placement_policy.h"

#include <fmt/format.h>

#include <numeric>

namespace slicelab {

PlacementPolicy::PlacementPolicy(std::vector<std::unique_ptr<Filter>> filters,
                                 std::vector<WeightedScorer> scorers,
                                 std::unique_ptr<DevicePicker> picker, TieBreak tie_break)
    : filters_(std::move(filters)),
      scorers_(std::move(scorers)),
      picker_(std::move(picker)),
      tie_break_(tie_break) {
  reset_static_cache();
}

void PlacementPolicy::attach(const RunPlugins& plugins) {
  run_ = plugins;
  reset_static_cache();
}

void PlacementPolicy::reset_static_cache() {
  std::vector<const Filter*> all;
  run_whole_.clear();
  for (const Filter* f : run_.filters) {
    all.push_back(f);
    run_whole_.push_back(f->static_part() == StaticPart::kWhole);
  }
  whole_.clear();
  for (const auto& f : filters_) {
    all.push_back(f.get());
    whole_.push_back(f->static_part() == StaticPart::kWhole);
  }
  static_.reset(all);
}

const std::vector<uint32_t>& PlacementPolicy::node_ranks(SchedulingCycle& cycle) {
  if (rank_.size() != cycle.cluster.node_count()) {
    // One seeded permutation for the whole run, drawn at its first cycle: the FGD simulator
    // prefixes node names with rand.Perm and its selectHost keeps the smallest name.
    rank_.resize(cycle.cluster.node_count());
    std::iota(rank_.begin(), rank_.end(), 0U);
    for (size_t i = rank_.size(); i > 1; --i) std::swap(rank_[i - 1], rank_[cycle.rng.below(i)]);
  }
  return rank_;
}

NodeId PlacementPolicy::select_host(SchedulingCycle& cycle) {
  const size_t n = candidates_.size();
  total_.resize(n);
  if (scorers_.size() == 1) {
    // One scorer: its weight (positive) cannot change the order, so its scores are the totals.
    const Scorer& only = *scorers_.front().scorer;
    only.score(cycle, candidates_, total_);
    if (only.normalizes()) only.normalize_scores(total_);
  } else {
    std::fill(total_.begin(), total_.end(), 0);
    scratch_.resize(n);
    for (const auto& ws : scorers_) {
      ws.scorer->score(cycle, candidates_, scratch_);
      if (ws.scorer->normalizes()) ws.scorer->normalize_scores(scratch_);
      for (size_t i = 0; i < n; ++i) total_[i] += ws.weight * scratch_[i];
    }
  }
  size_t best = 0;
  switch (tie_break_) {
    case TieBreak::kFirst:
      for (size_t i = 1; i < n; ++i)
        if (total_[i] > total_[best]) best = i;
      return candidates_[best];
    case TieBreak::kNodeOrder: {
      const auto& rank = node_ranks(cycle);
      for (size_t i = 1; i < n; ++i)
        if (total_[i] > total_[best] ||
            (total_[i] == total_[best] && rank[candidates_[i]] < rank[candidates_[best]]))
          best = i;
      return candidates_[best];
    }
    case TieBreak::kRandom:
      break;
  }
  // Uniform among the maxima, as kube-scheduler's selectHost (which samples a reservoir); here
  // counted first so that a tie of hundreds of idle nodes costs one draw, not one per node.
  int64_t top = total_[0];
  size_t ties = 0;
  for (size_t i = 0; i < n; ++i) {
    if (total_[i] > top) {
      top = total_[i];
      ties = 0;
    }
    ties += total_[i] == top ? 1 : 0;
  }
  size_t k = ties > 1 ? cycle.rng.below(ties) : 0;
  for (size_t i = 0; i < n; ++i)
    if (total_[i] == top && k-- == 0) return candidates_[i];
  return candidates_[0];
}

std::optional<NodeId> PlacementPolicy::schedule(SchedulingCycle& cycle, std::span<GpuId> gpus_out) {
  const ClusterState& cluster = cycle.cluster;
  if (all_nodes_.size() != cluster.node_count()) {
    all_nodes_.resize(cluster.node_count());
    std::iota(all_nodes_.begin(), all_nodes_.end(), NodeId{0});
  }
  for (cycle.pass = 0;; ++cycle.pass) {
    candidates_.assign(all_nodes_.begin(), all_nodes_.end());
    bool possible = true;
    for (PreFilter* p : run_.pre_filters)
      if (possible && !p->pre_filter(cycle, candidates_)) possible = false;
    if (possible) {
      // Filters decide node by node and keep the order, so narrowing first to the nodes that
      // pass their static parts leaves exactly the candidates, in the same order, as before.
      const bool cached = static_.narrow(cluster, cycle.req, candidates_);
      for (size_t i = 0; i < run_.filters.size() && !candidates_.empty(); ++i)
        if (!(cached && run_whole_[i])) run_.filters[i]->filter(cycle, candidates_);
      for (size_t i = 0; i < filters_.size() && !candidates_.empty(); ++i)
        if (!(cached && whole_[i])) filters_[i]->filter(cycle, candidates_);
      // Sampling scans all nodes: slicelab's PreFilters (the retry shortcut, MIG's node set)
      // only drop nodes the filters would reject, which kube-scheduler's scan counts as such.
      if (sampling_.active())
        sampling_.sample(all_nodes_, candidates_, cluster.node_count(), !scorers_.empty());
    }
    if (possible && !candidates_.empty()) break;
    bool again = false;
    for (PostFilter* p : run_.post_filters) again = p->post_filter(cycle) || again;
    if (!again) return std::nullopt;
  }
  const NodeId node = select_host(cycle);
  if (!place_on(cycle, node, gpus_out)) return std::nullopt;
  return node;
}

bool PlacementPolicy::place_on(SchedulingCycle& cycle, NodeId node, std::span<GpuId> gpus_out) {
  const auto gpus = gpus_out.first(static_cast<size_t>(cycle.req.gpu_count));
  if (!picker_->pick(cycle, node, gpus)) return false;
  return reserve(cycle, node, gpus);
}

bool PlacementPolicy::reserve(SchedulingCycle& cycle, NodeId node, std::span<GpuId> gpus) {
  for (ReservePlugin* r : run_.reserves) {
    if (r->reserve(cycle, node, gpus)) continue;
    // As kube-scheduler's RunReservePluginsUnreserve: every reserve plugin, in reverse order,
    // including those that never reserved (Unreserve is idempotent).
    unreserve(cycle, node, gpus);
    return false;
  }
  return true;
}

int64_t PlacementPolicy::max_total() const {
  if (scorers_.size() == 1) return kMaxNodeScore;  // select_host does not weight a lone scorer
  int64_t weights = 0;
  for (const auto& ws : scorers_) weights += ws.weight;
  return weights * kMaxNodeScore;
}

std::string_view PlacementPolicy::rejected_by(const SchedulingCycle& cycle, NodeId node) const {
  std::vector<NodeId> one;
  const auto rejects = [&](const Filter& f) {
    one.assign(1, node);
    f.static_filter(cycle.cluster, StaticShape::of(cycle.req), one);
    if (!one.empty()) f.filter(cycle, one);
    return one.empty();
  };
  for (const Filter* f : run_.filters)
    if (rejects(*f)) return f->name();
  for (const auto& f : filters_)
    if (rejects(*f)) return f->name();
  return {};
}

void PlacementPolicy::unreserve(const SchedulingCycle& cycle, NodeId node,
                                std::span<const GpuId> gpus) {
  for (size_t j = run_.reserves.size(); j-- > 0;) run_.reserves[j]->unreserve(cycle, node, gpus);
}

std::string_view tie_break_name(TieBreak t) {
  switch (t) {
    case TieBreak::kRandom:
      return "random";
    case TieBreak::kNodeOrder:
      return "node-order";
    case TieBreak::kFirst:
      return "first";
  }
  return "?";
}

std::optional<TieBreak> tie_break_from_name(std::string_view name) {
  if (name == "random") return TieBreak::kRandom;
  if (name == "node-order") return TieBreak::kNodeOrder;
  if (name == "first") return TieBreak::kFirst;
  return std::nullopt;
}

std::string PlacementPolicy::describe() const {
  std::vector<std::string> f, s;
  for (const auto& x : filters_) f.emplace_back(x->name());
  for (const auto& x : scorers_) s.push_back(fmt::format("{}:{}", x.scorer->name(), x.weight));
  std::string d = fmt::format("filters=[{}] scorers=[{}] picker={} ties={}", fmt::join(f, ","),
                              fmt::join(s, ","), picker_->name(), tie_break_name(tie_break_));
  if (sampling_.active()) d += fmt::format(" nodes-to-score={}%", sampling_.percentage());
  return d;
}

}  // namespace slicelab
