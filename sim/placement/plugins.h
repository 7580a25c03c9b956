// The extension points of placement, one interface each, in the order the Kubernetes scheduler
// framework runs them for one pod (one "scheduling cycle"); see docs/placement.md.
#pragma once

#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cluster_state.h"
#include "workloads/rng.h"

namespace slicelab {

class Scorer;
class DevicePicker;
class ModeIndex;

// What a sharing mode's run offers placement by name: scorers and device pickers that the plugin
// registry names but the mode's run holds, because they read its state (HAMi's; ModeScorer and
// ModeDevicePicker in mode_plugins.h delegate to them). SharingRun (sim/sharing/sharing_run.h)
// derives from it; the default offers none.
class ModePlacement {
 public:
  virtual ~ModePlacement() = default;
  virtual const Scorer* named_scorer(std::string_view /*name*/) const { return nullptr; }
  virtual const DevicePicker* named_picker(std::string_view /*name*/) const { return nullptr; }
  // An index for the named scorer (sim/placement/mode_index.h); null: the full pass.
  virtual const ModeIndex* named_index(std::string_view /*scorer*/) const { return nullptr; }
};

// Scores are integers in [kMinNodeScore, kMaxNodeScore], as kube-scheduler's framework.NodeScore:
// the truncation makes near-equal nodes tie, and the tie rule (selectHost) then decides, which is
// what the FGD paper's results depend on.
inline constexpr int64_t kMinNodeScore = 0;
inline constexpr int64_t kMaxNodeScore = 100;

// What every plugin sees during one placement attempt. `req` is the pod's claim in the sharing
// mode's capacity units; Reserve plugins may rewrite it (MIG: the instance's real claim).
struct SchedulingCycle {
  const ClusterState& cluster;
  PodRequest& req;
  uint32_t pod = UINT32_MAX;  // the pod's index in the run, for stateful plugins
  double now_s = 0;
  Rng& rng;
  // 0 on the first pass; a PostFilter that asks for another pass (MIG: allow re-partitioning)
  // makes it 1, and so on.
  int pass = 0;
  // The sharing mode's state for this run, for plugins that score or pick by it (HAMi's);
  // null outside an engine run.
  const ModePlacement* sharing = nullptr;
};

// Why a filter or a pre-filter rejects a node, for `slicelab explain` (docs/explain.md): `reason`
// is the category counted over nodes ("not enough free CPU"), `detail` this node's figures.
struct Rejection {
  std::string reason;
  std::string detail;
};

// PreFilter: runs once per pass before any Filter and may narrow the node set (the engine's
// retry shortcut: only nodes freed since the pod last failed; MIG: nodes with an instance of
// the pod's profile). Returns false when the pod cannot be placed in this pass at all.
class PreFilter {
 public:
  virtual ~PreFilter() = default;
  virtual std::string_view name() const = 0;
  virtual bool pre_filter(const SchedulingCycle& cycle, std::vector<NodeId>& nodes) = 0;
  // What pre_filter would do to the list of every node, when that is known without the list:
  // kKeepsAll (returns true, list unchanged), kRejects (returns false); kNeedsList otherwise. Lets
  // an index decide without a per-attempt copy of every node id.
  enum class Verdict { kNeedsList, kKeepsAll, kRejects };
  virtual Verdict on_every_node(const SchedulingCycle& /*cycle*/) const {
    return Verdict::kNeedsList;
  }
  // pre_filter on the list of every node, in node order, when on_every_node said kNeedsList:
  // writes the narrowed list into `nodes` (its old content ignored). The default lists every node
  // and narrows; a pre-filter that keeps a few nodes it knows writes them directly, so that an
  // attempt does not copy every node id first.
  virtual bool pre_filter_every(const SchedulingCycle& cycle, std::vector<NodeId>& nodes) {
    nodes.resize(cycle.cluster.node_count());
    std::iota(nodes.begin(), nodes.end(), NodeId{0});
    return pre_filter(cycle, nodes);
  }
  // Explain only: why pre_filter drops `node` (called on a node it dropped); empty: no more than
  // the plugin's name.
  virtual Rejection why_rejected(const SchedulingCycle& /*cycle*/, NodeId /*node*/) const {
    return {};
  }
  // A shortcut drops only nodes that every filter would reject anyway (the engine's retry
  // shortcut): explain reports its narrowing but judges every node by the filters.
  virtual bool shortcut() const { return false; }
};

// The fields of a pod's request that a filter's static part may read: its "shape" for the
// static filter cache (sim/placement/static_filter_cache.h). Deliberately not CPU and memory:
// traces have thousands of distinct CPU and memory requests, and the free-resource check already
// covers what a node's capacity would.
struct StaticShape {
  uint64_t model_mask = ~uint64_t{0};
  int64_t gpu_memory_mib = 0;
  int gpu_count = 0;

  static StaticShape of(const PodRequest& req) {
    return {req.model_mask, req.gpu_memory_mib, req.gpu_count};
  }
  friend bool operator==(const StaticShape&, const StaticShape&) = default;
};

// How much of a filter's test is static: reads only facts that never change during a run (a
// node's GPU model, GPU count, per-GPU memory) and the pod's StaticShape.
enum class StaticPart {
  kNone,   // no static part (static_filter keeps every node)
  kSome,   // static_filter is a necessary condition of filter()
  kWhole,  // static_filter is the whole test: filter() need not run once it has
};

// Filter: removes the nodes that cannot hold the pod, keeping the order of the rest. Sees the
// whole list at once (one indirect call per plugin, tight inner loops). Must be monotone: a node
// that passes keeps passing when it gains free resources, and one that fails keeps failing when
// it loses them (the retry shortcut relies on it). Must decide each node on its own (so that
// running it on fewer nodes keeps the same ones).
class Filter {
 public:
  virtual ~Filter() = default;
  virtual std::string_view name() const = 0;
  virtual void filter(const SchedulingCycle& cycle, std::vector<NodeId>& candidates) const = 0;

  // The static part, which the framework caches per StaticShape (PreFilter-like): a node it
  // removes must fail filter() however the cluster is used.
  virtual StaticPart static_part() const { return StaticPart::kNone; }
  virtual void static_filter(const ClusterState& /*cluster*/, const StaticShape& /*shape*/,
                             std::vector<NodeId>& /*candidates*/) const {}
  // Explain only: why the filter rejects `node` (called on a node it rejects); empty: no more
  // than the plugin's name.
  virtual Rejection why_rejected(const SchedulingCycle& /*cycle*/, NodeId /*node*/) const {
    return {};
  }
};

// PostFilter: runs when no node passed the filters. Returns true to ask for another pass with
// cycle.pass + 1 (kube-scheduler's PostFilter is where preemption makes room; here MIG's dynamic
// re-partitioning does).
class PostFilter {
 public:
  virtual ~PostFilter() = default;
  virtual std::string_view name() const = 0;
  virtual bool post_filter(const SchedulingCycle& cycle) = 0;
};

// Score: an integer in [0, 100] per candidate, higher is better. NormalizeScore, when the
// plugin has one, rescales the list after all candidates are scored and before weighting.
class Scorer {
 public:
  virtual ~Scorer() = default;
  virtual std::string_view name() const = 0;
  virtual void score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
                     std::span<int64_t> out) const = 0;
  virtual bool normalizes() const { return false; }
  virtual void normalize_scores(std::span<int64_t> /*scores*/) const {}
  // Explain only: the number a score stands for when it is not itself (HAMi's node score, whose
  // float32 the integer orders as); nullopt: the score is the number.
  virtual std::optional<double> score_value(const SchedulingCycle& /*cycle*/,
                                            int64_t /*score*/) const {
    return std::nullopt;
  }
};

// kube-scheduler's selectHost: how the winner is chosen among the nodes with the highest
// weighted total.
enum class TieBreak {
  kRandom,     // uniform among the maxima, drawn per pod (kube-scheduler's selectHost)
  kNodeOrder,  // the first maximum in a seeded random node order fixed for the whole run (the
               // FGD paper's simulator: node names prefixed by rand.Perm, smallest name wins)
  kFirst,      // the lowest node index: deterministic studies, first-fit
};

// Reserve, first step: chooses the pod's GPUs on the chosen node (Open-Gpu-Share and HAMi do this
// in their Reserve). Writes req.gpu_count GPUs into out in preference order; returns false if
// the node cannot hold the pod after all.
class DevicePicker {
 public:
  virtual ~DevicePicker() = default;
  virtual std::string_view name() const = 0;
  virtual bool pick(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> out) const = 0;
};

// Reserve/Unreserve: stateful plugins take what the pod will hold (MIG: its instances) before
// the backend binds it, and give it back if binding fails. Reserve may rewrite the chosen GPUs
// and the request. Unreserve must be idempotent. Both run in registration order (Unreserve in
// reverse), as kube-scheduler's.
class ReservePlugin {
 public:
  virtual ~ReservePlugin() = default;
  virtual std::string_view name() const = 0;
  virtual bool reserve(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> gpus) = 0;
  virtual void unreserve(const SchedulingCycle& cycle, NodeId node,
                         std::span<const GpuId> gpus) = 0;
};

// Bind is the backend's: the simulator binds into ClusterState, backends/local starts the
// process on the chosen GPUs.

}  // namespace slicelab
