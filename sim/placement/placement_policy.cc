#include "sim/placement/placement_policy.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <numeric>

#include "sim/placement/fgd_plugins.h"
#include "sim/placement/filters.h"
#include "sim/placement/mode_plugins.h"
#include "sim/placement/paper_scorers.h"
#include "sim/placement/scorers.h"

namespace slicelab {

PlacementPolicy::PlacementPolicy(std::vector<std::unique_ptr<Filter>> filters,
                                 std::vector<WeightedScorer> scorers,
                                 std::unique_ptr<DevicePicker> picker, TieBreak tie_break)
    : filters_(std::move(filters)),
      scorers_(std::move(scorers)),
      picker_(std::move(picker)),
      tie_break_(tie_break) {
  reset_static_cache();
  classify();
  classify_counted();
  classify_scored();
}

void PlacementPolicy::attach(const RunPlugins& plugins) {
  run_ = plugins;
  reset_static_cache();
  index_.reset();
  counts_.reset();
  scored_index_.reset();
  indexed_decisions_ = 0;
}

void PlacementPolicy::classify() {
  indexed_ = Indexed::kNone;
  for (const auto& f : filters_) {
    const Filter* p = f.get();
    if (dynamic_cast<const ResourceFilter*>(p) != nullptr) {
      has_resources_ = true;
    } else if (dynamic_cast<const GpuCapacityFilter*>(p) != nullptr) {
      has_capacity_ = true;
    } else if (dynamic_cast<const GpuModelFilter*>(p) != nullptr) {
      has_model_ = true;
    } else {
      return;  // a filter the index does not know: always the full pass
    }
  }
  // Any other scorers and tie rule: the full pass, unless classify_counted finds a counted one.
  indexed_ = Indexed::kCandidates;
  if (scorers_.empty()) {
    // No scorer: every candidate ties at 0, and only "first" makes that the lowest index.
    if (tie_break_ == TieBreak::kFirst) indexed_ = Indexed::kFirstFit;
    return;
  }
  // One scorer whose order a node's key decides; the key bounds need both free-resource filters
  // (a feasible node then has key >= the pod's key).
  if (scorers_.size() != 1) return;
  const Scorer* only = scorers_.front().scorer.get();
  // A mode's scorer: whether its run has an index is known per run (mode_index).
  if (dynamic_cast<const ModeScorer*>(only) != nullptr) indexed_ = Indexed::kMode;
  if (!has_resources_ || !has_capacity_) return;
  if (dynamic_cast<const BinpackScorer*>(only) != nullptr) indexed_ = Indexed::kBinpack;
  if (dynamic_cast<const SpreadScorer*>(only) != nullptr) indexed_ = Indexed::kSpread;
}

void PlacementPolicy::classify_scored() {
  // The index tests the filters as indexed_feasible does: only the three it knows.
  scored_ = false;
  if (indexed_ == Indexed::kNone || indexed_ == Indexed::kMode || scorers_.size() != 1) return;
  const Scorer* only = scorers_.front().scorer.get();
  // Their NormalizeScore is min-max: the highest raw score, and only it, becomes 100 (or all
  // tie when every node scores alike), so the maxima are the raw maxima.
  const bool min_max = dynamic_cast<const BinpackScorer*>(only) != nullptr ||
                       dynamic_cast<const SpreadScorer*>(only) != nullptr;
  const bool raw = dynamic_cast<const FgdScorer*>(only) != nullptr ||
                   dynamic_cast<const DotProductScorer*>(only) != nullptr ||
                   dynamic_cast<const GpuPackingScorer*>(only) != nullptr ||
                   dynamic_cast<const GpuClusteringScorer*>(only) != nullptr;
  scored_ = (min_max && only->normalizes()) || (raw && !only->normalizes());
}

bool PlacementPolicy::scored_top(SchedulingCycle& cycle) {
  // The policy's filters and lone scorer, for this cycle's pod.
  class Asks final : public ScoreBucketIndex::Asks {
   public:
    Asks(const PlacementPolicy& policy, SchedulingCycle& cycle) : policy_(policy), cycle_(cycle) {}
    bool feasible(NodeId n) const override {
      return policy_.indexed_feasible(cycle_.cluster, cycle_.req, n);
    }
    void score(std::span<const NodeId> nodes, std::span<int64_t> out) const override {
      policy_.scorers_.front().scorer->score(cycle_, nodes, out);
    }

   private:
    const PlacementPolicy& policy_;
    SchedulingCycle& cycle_;
  };
  ties_.clear();
  tie_classes_.clear();
  mode_sets_.clear();
  class_ties_ = 0;
  if (!scored_index_.top(cycle.cluster, cycle.req, Asks(*this, cycle), ties_, mode_sets_))
    return false;
  for (const TiedSet& t : mode_sets_) class_ties_ += t.count;
  return true;
}

bool PlacementPolicy::indexed_feasible(const ClusterState& cluster, const PodRequest& req,
                                       NodeId n) const {
  // GpuModelFilter, ResourceFilter and GpuCapacityFilter's tests, on one node.
  if (has_model_ && req.gpu_count > 0 &&
      !(((req.model_mask >> cluster.model(n)) & 1U) != 0 &&
        cluster.gpu_memory_capacity(n) >= req.gpu_memory_mib &&
        cluster.gpus_on(n) >= req.gpu_count))
    return false;
  if (has_resources_ &&
      !(cluster.cpu_free(n) >= req.cpu_milli && cluster.memory_free(n) >= req.memory_mib))
    return false;
  return !has_capacity_ || cluster.gpus_fit(n, req);
}

const ModeIndex* PlacementPolicy::mode_index(const SchedulingCycle& cycle) const {
  if (indexed_ != Indexed::kMode || cycle.sharing == nullptr) return nullptr;
  const ModeIndex* index = cycle.sharing->named_index(scorers_.front().scorer->name());
  return index != nullptr && index->applies(run_.filters) ? index : nullptr;
}

std::optional<NodeId> PlacementPolicy::mode_select(SchedulingCycle& cycle, const ModeIndex& index) {
  // The run's index applies the run's filters and the policy's (by `passes`), and lists the
  // nodes at the scorer's highest raw score: with one scorer and no NormalizeScore, the maxima
  // of the totals. The tie rule then picks among them as select_host would.
  const ClusterState& cluster = cycle.cluster;
  const PodRequest& req = cycle.req;
  tie_classes_.clear();
  const bool gpus = has_capacity_ && req.gpu_count > 0;
  const bool whole = gpus && req.gpu_count > 1 && req.claim_units == cluster.capacity_units();
  constexpr int64_t kAny = FreeCapacityIndex::kNoMinimum;
  const PolicyNeed need{has_resources_ ? req.cpu_milli : kAny,
                        has_resources_ ? req.memory_mib : kAny, gpus ? req.claim_units : kAny,
                        whole ? req.gpu_count : kAny};
  const std::function<bool(NodeId)> passes = [&](NodeId n) {
    return indexed_feasible(cluster, req, n);
  };
  index.top_nodes(cycle, need, passes, ties_, mode_sets_);
  class_ties_ = 0;
  for (const TiedSet& t : mode_sets_) class_ties_ += t.count;
  if (ties_.empty() && mode_sets_.empty()) return std::nullopt;
  return pick_among_ties(cycle);
}

std::optional<NodeId> PlacementPolicy::indexed_select(SchedulingCycle& cycle) {
  const ClusterState& cluster = cycle.cluster;
  const PodRequest& req = cycle.req;
  index_.sync(cluster);
  const auto feasible = [&](NodeId n) { return indexed_feasible(cluster, req, n); };
  ties_.clear();
  tie_classes_.clear();
  mode_sets_.clear();
  class_ties_ = 0;
  // Necessary conditions the max-tree prunes by: free CPU and memory, one GPU with the claim
  // free, and (whole GPUs) enough idle GPUs on one node.
  constexpr int64_t kAny = FreeCapacityIndex::kNoMinimum;
  const bool gpus = has_capacity_ && req.gpu_count > 0;
  const bool whole = gpus && req.gpu_count > 1 && req.claim_units == cluster.capacity_units();
  const NodeId first_fit = index_.first_where(
      has_resources_ ? req.cpu_milli : kAny, has_resources_ ? req.memory_mib : kAny,
      gpus ? req.claim_units : kAny, whole ? req.gpu_count : kAny, feasible);
  // No node passes the filters; else the full pass's first candidate in node order.
  if (first_fit == UINT32_MAX) return std::nullopt;
  if (indexed_ == Indexed::kFirstFit) {
    // With no scorer every candidate ties, and "first" takes the lowest index.
    ties_.push_back(first_fit);
    return pick_among_ties(cycle);
  }
  constexpr double kMargin = 1e-9;
  const Scorer& only = *scorers_.front().scorer;
  const double pod = index_.pod_key(req);
  // A feasible node has at least the pod's CPU and GPU units free: key >= pod_key.
  const int first = FreeCapacityIndex::bucket_of(pod - kMargin);
  const bool binpack = indexed_ == Indexed::kBinpack;
  // Nodes below this level have no GPU with the pod's claim free.
  const int min_level = gpus ? index_.min_level(req.claim_units) : 0;
  int64_t best = -1;
  constexpr int kLast = FreeCapacityIndex::kBuckets - 1;
  for (int b = index_.next_bucket(binpack ? first : kLast, binpack);
       binpack ? b <= kLast : b >= first;
       b = index_.next_bucket(binpack ? b + 1 : b - 1, binpack)) {
    if (best >= 0) {
      const double bound = static_cast<double>(best) / 100.0;
      if (binpack && FreeCapacityIndex::lower(b) - pod - kMargin > 1.0 - bound) break;
      if (!binpack && FreeCapacityIndex::upper(b) - pod + kMargin < bound) break;
    }
    batch_.clear();
    for (int level = min_level; level < FreeCapacityIndex::kLevels; ++level)
      for (const NodeId n : index_.bucket(b, level))
        if (feasible(n)) batch_.push_back(n);
    // An idle class is one node to the filters and the scorer (its members are alike): its
    // lowest member is tested and scored for all, and a tie counts them all.
    const size_t listed = batch_.size();
    rep_classes_.clear();
    for (const int c : index_.classes_at(b)) {
      if (index_.idle_count(c) == 0) continue;
      if (const NodeId rep = index_.idle_member(c); feasible(rep)) {
        batch_.push_back(rep);
        rep_classes_.push_back(c);
      }
    }
    if (batch_.empty()) continue;
    raw_.resize(batch_.size());
    only.score(cycle, batch_, raw_);
    for (size_t j = 0; j < batch_.size(); ++j) {
      if (raw_[j] > best) {
        best = raw_[j];
        ties_.clear();
        tie_classes_.clear();
        class_ties_ = 0;
      }
      if (j < listed) {
        if (raw_[j] == best) ties_.push_back(batch_[j]);
        continue;
      }
      const int c = rep_classes_[j - listed];
      if (raw_[j] == best) {
        tie_classes_.push_back(c);
        class_ties_ += index_.idle_count(c);
      }
    }
  }
  return pick_among_ties(cycle);  // not empty: first_fit is feasible and was scored
}

NodeId PlacementPolicy::pick_among_ties(SchedulingCycle& cycle) {
  // select_host's tie rules on the maxima alone, with the same draws; ties_ is in any order, and
  // the k-th in node order is found by selection, not a sort (ties may be thousands of nodes).
  total_.clear();
  switch (tie_break_) {
    case TieBreak::kFirst: {
      NodeId best = ties_.empty() ? UINT32_MAX : *std::min_element(ties_.begin(), ties_.end());
      for (const int c : tie_classes_) best = std::min(best, index_.idle_member(c));
      for (const TiedSet& t : mode_sets_) best = std::min(best, t.lowest);
      return best;
    }
    case TieBreak::kNodeOrder: {
      const auto& rank = node_ranks(cycle);
      NodeId best = !ties_.empty()          ? ties_.front()
                    : !tie_classes_.empty() ? index_.idle_member(tie_classes_.front())
                                            : mode_sets_.front().lowest;
      for (const NodeId n : ties_)
        if (rank[n] < rank[best]) best = n;
      std::vector<std::span<const uint64_t>> sets;
      for (const int c : tie_classes_) sets.push_back(index_.idle_bits(c));
      for (const TiedSet& t : mode_sets_) sets.push_back(t.bits);
      for (const auto bits : sets) {
        for (size_t w = 0; w < bits.size(); ++w)
          for (uint64_t word = bits[w]; word != 0; word &= word - 1) {
            const auto n =
                static_cast<NodeId>(w * 64 + static_cast<size_t>(std::countr_zero(word)));
            if (rank[n] < rank[best]) best = n;
          }
      }
      return best;
    }
    case TieBreak::kRandom:
      break;
  }
  const size_t total = ties_.size() + class_ties_;
  size_t k = total > 1 ? cycle.rng.below(total) : 0;
  if (tie_classes_.empty() && mode_sets_.empty() && ties_.size() < 64) {
    const auto kth = ties_.begin() + static_cast<std::ptrdiff_t>(k);
    std::nth_element(ties_.begin(), kth, ties_.end());
    return *kth;
  }
  // Many ties (thousands of idle nodes under spread): mark them in a bitset over node ids and
  // count set bits word by word, two cheap passes instead of a selection's swaps.
  tie_bits_.resize((cycle.cluster.node_count() + 63) / 64);  // all zero between calls
  for (const NodeId n : ties_) tie_bits_[n / 64] |= uint64_t{1} << (n % 64);
  NodeId chosen = UINT32_MAX;
  for (size_t w = 0; w < tie_bits_.size(); ++w) {
    uint64_t word = tie_bits_[w];
    for (const int c : tie_classes_) word |= index_.idle_bits(c)[w];  // disjoint from ties_
    for (const TiedSet& t : mode_sets_) word |= t.bits[w];
    const auto count = static_cast<size_t>(std::popcount(word));
    if (k >= count) {
      k -= count;
      continue;
    }
    for (; k > 0; --k) word &= word - 1;  // drop the k lowest set bits
    chosen = static_cast<NodeId>(w * 64 + static_cast<size_t>(std::countr_zero(word)));
    break;
  }
  for (const NodeId n : ties_) tie_bits_[n / 64] = 0;
  return chosen;
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
  // The index proves the decision only on the whole cluster (no pre-filter narrowed it) under
  // the policy's own filters alone, and with no PostFilter to run when nothing fits; never with
  // percentageOfNodesToScore, whose scan order and rotating start are kube-scheduler's.
  const ModeIndex* by_mode =
      indexes_ && !sampling_.active() && run_.post_filters.empty() ? mode_index(cycle) : nullptr;
  const bool indexable =
      by_mode != nullptr ||
      (indexes_ && !sampling_.active() && indexed_ != Indexed::kNone &&
       indexed_ != Indexed::kMode && run_.filters.empty() && run_.post_filters.empty());
  last_indexed_ = false;
  for (cycle.pass = 0;; ++cycle.pass) {
    bool possible = true;
    // The list of every node is built only when a pre-filter needs it, or the full pass does: a
    // copy of every node id per attempt is what made the index's cost grow with the cluster.
    bool listed = false;
    for (PreFilter* p : run_.pre_filters) {
      if (!listed) {
        const PreFilter::Verdict v = p->on_every_node(cycle);
        if (v == PreFilter::Verdict::kKeepsAll) continue;
        if (v == PreFilter::Verdict::kRejects) {
          possible = false;
          break;
        }
        listed = true;
        if (!p->pre_filter_every(cycle, candidates_)) {
          possible = false;
          break;
        }
        continue;
      }
      if (!p->pre_filter(cycle, candidates_)) {
        possible = false;
        break;
      }
    }
    // kCandidates (and a share under kRandom, kPacking) take the full pass: listing the
    // candidates from the index in one fused pass was tried and cost fgd 2-3x (docs/placement.md).
    const bool whole_cluster = !listed || candidates_.size() == cluster.node_count();
    // A lone scorer whose score follows the node's state, for a request shape the run repeats:
    // its maxima from the score-bucket index (a replay of what changed since the shape's last
    // pod), before the other indexes (which visit the top nodes by free capacity).
    if (possible && indexable && scored_ && by_mode == nullptr && whole_cluster &&
        !((indexed_ == Indexed::kRandom || indexed_ == Indexed::kPacking) && countable(cycle)) &&
        scored_top(cycle)) {
      last_indexed_ = true;
      ++indexed_decisions_;
      if (ties_.empty() && mode_sets_.empty()) return std::nullopt;
      const NodeId node = pick_among_ties(cycle);
      if (!place_on(cycle, node, gpus_out)) return std::nullopt;
      return node;
    }
    const bool decides =
        by_mode != nullptr || indexed_ == Indexed::kFirstFit || indexed_ == Indexed::kBinpack ||
        indexed_ == Indexed::kSpread ||
        ((indexed_ == Indexed::kRandom || indexed_ == Indexed::kPacking) && countable(cycle));
    if (possible && indexable && decides && whole_cluster) {
      if ((indexed_ == Indexed::kRandom || indexed_ == Indexed::kPacking) && countable(cycle)) {
        last_indexed_ = true;
        ++indexed_decisions_;
        ties_.clear();
        const std::optional<NodeId> node =
            indexed_ == Indexed::kRandom ? random_select(cycle) : packing_select(cycle);
        if (!node.has_value()) return std::nullopt;
        ties_.push_back(*node);
        if (!place_on(cycle, *node, gpus_out)) return std::nullopt;
        return node;
      }
      last_indexed_ = true;
      ++indexed_decisions_;
      const std::optional<NodeId> node =
          by_mode != nullptr ? mode_select(cycle, *by_mode) : indexed_select(cycle);
      if (!node.has_value()) {
        ties_.clear();
        return std::nullopt;
      }
      if (!place_on(cycle, *node, gpus_out)) return std::nullopt;
      return node;
    }
    if (!possible) {
      if (!listed) candidates_.clear();
    } else {
      if (!listed) candidates_.assign(all_nodes_.begin(), all_nodes_.end());
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

bool PlacementPolicy::passes_filters(const SchedulingCycle& cycle, NodeId node,
                                     std::vector<NodeId>& scratch) const {
  const auto passes = [&](const Filter& f) {
    scratch.assign(1, node);
    f.static_filter(cycle.cluster, StaticShape::of(cycle.req), scratch);
    if (!scratch.empty()) f.filter(cycle, scratch);
    return !scratch.empty();
  };
  for (const Filter* f : run_.filters)
    if (!passes(*f)) return false;
  for (const auto& f : filters_)
    if (!passes(*f)) return false;
  return true;
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
