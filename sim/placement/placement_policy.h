// One placement policy run as kube-scheduler runs a profile: PreFilter, Filter, PostFilter,
// Score, NormalizeScore, weights, selectHost, Reserve. Holds scratch buffers: one per run.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/placement/feasible_count_tree.h"
#include "sim/placement/free_capacity_index.h"
#include "sim/placement/mode_index.h"
#include "sim/placement/node_sampling.h"
#include "sim/placement/plugins.h"
#include "sim/placement/score_bucket_index.h"
#include "sim/placement/static_filter_cache.h"

namespace slicelab {

struct WeightedScorer {
  std::unique_ptr<Scorer> scorer;
  int64_t weight = 1;  // kube-scheduler's plugin weight: a positive integer
};

// Plugins a run adds to the policy's own: they live as long as the run and hold its state (the
// engine's retry shortcut, the sharing mode's MIG instances). Not owned.
struct RunPlugins {
  std::vector<PreFilter*> pre_filters;
  std::vector<Filter*> filters;
  std::vector<PostFilter*> post_filters;
  std::vector<ReservePlugin*> reserves;
};

std::string_view tie_break_name(TieBreak t);
std::optional<TieBreak> tie_break_from_name(std::string_view name);  // nullopt if unknown

class PlacementPolicy {
 public:
  PlacementPolicy(std::vector<std::unique_ptr<Filter>> filters, std::vector<WeightedScorer> scorers,
                  std::unique_ptr<DevicePicker> picker, TieBreak tie_break = TieBreak::kRandom);

  // Run plugins go first among the pre-filters, filters and post-filters (they narrow the set
  // cheaply) and last among the reserve plugins (they may rewrite the device picker's choice).
  // Starts a run: the static filter cache forgets its shapes.
  void attach(const RunPlugins& plugins);

  // One scheduling cycle: on success the pod's GPUs are in gpus_out[0, req.gpu_count) and every
  // reserve plugin has reserved them; the caller binds, or calls unreserve() if it cannot.
  std::optional<NodeId> schedule(SchedulingCycle& cycle, std::span<GpuId> gpus_out);
  void unreserve(const SchedulingCycle& cycle, NodeId node, std::span<const GpuId> gpus);
  // Reserve on a node chosen elsewhere (a pod bound by another scheduler, a decision replayed):
  // the device picker's GPUs, then the reserve plugins, as schedule() does after selectHost.
  bool place_on(SchedulingCycle& cycle, NodeId node, std::span<GpuId> gpus_out);
  // Only the reserve plugins, on GPUs already chosen (a binding replayed into a fresh run).
  bool reserve(SchedulingCycle& cycle, NodeId node, std::span<GpuId> gpus);

  // Indexes (default on; docs/placement.md, "Indexes"): for the policies whose decision the
  // free-capacity index can prove, schedule() visits only the nodes that can matter and decides
  // exactly as the full pass would (same node, GPUs and random draws). Off: always the full pass.
  void set_indexes(bool on) { indexes_ = on; }
  bool indexes() const { return indexes_; }
  // How many of this run's decisions an index made (the rest took the full pass); for tests
  // and benches that must know the index was used.
  uint64_t indexed_decisions() const { return indexed_decisions_; }

  // After schedule(): the nodes that passed every filter in its last pass, in node order, and
  // (when a node was selected) their weighted score totals, aligned; valid until the next call.
  // Only with indexes off, or on the full pass: an indexed decision leaves the nodes tied at
  // the top that it listed (in no particular order; not the idle nodes it tied as a class; for
  // random and gpu-packing's counted decisions, the chosen node) and no totals.
  std::span<const NodeId> feasible() const { return last_indexed_ ? ties_ : candidates_; }
  std::span<const int64_t> totals() const { return total_; }
  // The largest total a node can reach (each score at kMaxNodeScore); 0 without scorers.
  int64_t max_total() const;
  // The first filter (run plugins first) that rejects `node` for the cycle's pod, or "" if none
  // does; for messages (runs every filter on the one node).
  std::string_view rejected_by(const SchedulingCycle& cycle, NodeId node) const;
  // Whether every filter passes `node` (rejected_by() is empty), with `scratch` for the one-node
  // list so that a caller asking often (preemption's dry runs) allocates nothing.
  bool passes_filters(const SchedulingCycle& cycle, NodeId node,
                      std::vector<NodeId>& scratch) const;

  // kube-scheduler's percentageOfNodesToScore (node_sampling.h): NodeSampling::kOff (100, the
  // default) scores every feasible node; below it, or 0 (adaptive), each pass keeps the first
  // numFeasibleNodesToFind feasible nodes from a rotating start, in scan order.
  void set_node_sampling(int percentage) { sampling_ = NodeSampling(percentage); }
  // Sampling active: the filter pass must visit every pre-filtered node, node by node (no index
  // that skips nodes), so that the scan order and the rotating start are kube-scheduler's.
  bool sampling_active() const { return sampling_.active(); }

  // "filters=[...] scorers=[binpack:1] picker=binpack ties=random"
  std::string describe() const;
  TieBreak tie_break() const { return tie_break_; }

 private:
  friend class PlacementExplainer;             // reads the plugins (placement_explanation.h)
  NodeId select_host(SchedulingCycle& cycle);  // candidates_ is not empty
  // ties_ (any order) and tie_classes_: not both empty.
  NodeId pick_among_ties(SchedulingCycle& cycle);
  // The policy shapes whose decision the index can prove (kNone: every other one).
  // kMode: one scorer a sharing mode's run holds, which may offer an index (ModeIndex).
  // kCandidates: the filters are the index's, the scorers not (the full pass decides).
  // kRandom, kPacking: the random or the gpu-packing scorer alone; whole-GPU and CPU-only pods
  // are decided by counts (counted_decisions.cc), the others as kCandidates.
  enum class Indexed { kNone, kFirstFit, kBinpack, kSpread, kMode, kCandidates, kRandom, kPacking };
  void classify();
  void classify_counted();
  bool countable(const SchedulingCycle& cycle) const;
  FeasibleCountTree::Query count_query(const PodRequest& req) const;
  // The random and the gpu-packing scorer's decisions from the feasible-count tree, with
  // select_host's draws; nullopt when no node passes.
  std::optional<NodeId> random_select(SchedulingCycle& cycle);
  std::optional<NodeId> packing_select(SchedulingCycle& cycle);
  bool indexed_feasible(const ClusterState& cluster, const PodRequest& req, NodeId n) const;
  // The lone scorer's maxima from the score-bucket index into ties_ and mode_sets_; false when
  // the pod's shape has no slot yet (the caller decides another way).
  bool scored_top(SchedulingCycle& cycle);
  // The decision of an indexable policy on the whole cluster; nullopt when no node passes.
  std::optional<NodeId> indexed_select(SchedulingCycle& cycle);
  const std::vector<uint32_t>& node_ranks(SchedulingCycle& cycle);
  // kMode: the run's index for the scorer when it applies to the run's filters, else null.
  const ModeIndex* mode_index(const SchedulingCycle& cycle) const;
  std::optional<NodeId> mode_select(SchedulingCycle& cycle, const ModeIndex& index);

  std::vector<std::unique_ptr<Filter>> filters_;
  std::vector<WeightedScorer> scorers_;
  std::unique_ptr<DevicePicker> picker_;
  TieBreak tie_break_;
  void reset_static_cache();

  RunPlugins run_;
  // After the pre-filters, the static parts of all filters come from this cache, and the filters
  // that are wholly static (whole_ and run_whole_: one flag per filter) are not run.
  StaticFilterCache static_;
  std::vector<bool> whole_, run_whole_;
  std::vector<NodeId> all_nodes_, candidates_;
  std::vector<int64_t> total_, scratch_;
  std::vector<uint32_t> rank_;
  NodeSampling sampling_;

  bool indexes_ = true;
  // The lone scorer's score follows the node's state, in [0, 100], and its NormalizeScore (if
  // any) is min-max: the score-bucket index can list its maxima (classify_scored).
  bool scored_ = false;
  void classify_scored();
  uint64_t indexed_decisions_ = 0;
  bool last_indexed_ = false;  // the last schedule() decided on the index: feasible() is ties_
  Indexed indexed_ = Indexed::kNone;
  bool has_resources_ = false, has_capacity_ = false, has_model_ = false;
  FreeCapacityIndex index_;
  FeasibleCountTree counts_;  // kRandom's and kPacking's
  ScoreBucketIndex scored_index_;
  std::vector<NodeId> ties_, batch_;
  std::vector<int> rep_classes_;    // indexed_select's scratch: the class batch_'s tail stands for
  std::vector<int> tie_classes_;    // the index's idle classes tied at the top, besides ties_
  std::vector<TiedSet> mode_sets_;  // a mode index's sets tied at the top, besides ties_
  size_t class_ties_ = 0;           // the members of both
  std::vector<uint64_t> tie_bits_;  // pick_among_ties' scratch: one bit per node, zero at rest
  std::vector<int64_t> raw_;
};

}  // namespace slicelab
