// `slicelab explain`'s record of why one pod went where it went (docs/explain.md): for each of
// its scheduling attempts, every filter's verdict per node, the pre-filters' narrowing, each
// score plugin's raw and normalised score for the top candidates, the tie-break and the device
// picker's GPUs; for an attempt that failed, what blocked it.
//
// Computed only when asked: the engine holds a null PlacementExplainer* unless a run is explained
// and tests it once per scheduling attempt (sim/engine/pod_start.cc). The explainer recomputes
// the attempt on the whole node set, on copies of the pod's request and of the run's random
// source, and calls only const plugin methods (and pre- and post-filters that change nothing), so
// that the run decides exactly as it would without it; it then records the node, GPUs and claim
// that the run itself chose (the run may have decided on an index, without the full pass).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sim/placement/plugins.h"

namespace slicelab {

class PlacementPolicy;

struct ExplainOptions {
  size_t top = 5;          // --top K: the candidates whose scores are shown
  size_t node_limit = 20;  // --nodes N: verdicts per node up to N nodes, else counted by reason
};

// One plugin's verdict on one node.
struct PluginVerdict {
  std::string plugin;
  bool pre_filter = false;  // a PreFilter (it narrowed the node set), else a Filter
  bool passed = true;
  std::string reason;  // why not (the category counted over nodes); empty when passed
  std::string detail;  // this node's figures behind the reason; may be empty
};

struct NodeVerdicts {
  NodeId node = 0;
  bool feasible = true;  // every verdict passed
  std::vector<PluginVerdict> verdicts;
};

// How many nodes a plugin rejected for one reason (a node rejected by two plugins counts under
// both).
struct RejectionCount {
  std::string plugin;
  std::string reason;
  size_t nodes = 0;
};

struct PreFilterStep {
  std::string name;
  size_t before = 0, after = 0;
  bool shortcut = false;  // the engine's retry shortcut: nodes every filter would reject anyway
};

struct CandidateScores {
  NodeId node = 0;
  std::vector<int64_t> raw, normalized;  // one per scorer, in the policy's order
  // The number a raw score stands for, where it is not itself (Scorer::score_value: HAMi's).
  std::vector<std::optional<double>> value;
  int64_t total = 0;
};

struct PassExplanation {
  int pass = 0;
  std::vector<PreFilterStep> pre_filters;
  size_t feasible = 0;
  std::vector<RejectionCount> rejections;  // most nodes first, then by plugin and reason
  std::vector<NodeVerdicts> nodes;         // every node, when the cluster has at most node_limit
  // Scores, on the pass that found candidates.
  std::vector<CandidateScores> top;  // the top K by total (then node index)
  size_t tied_at_top = 0;            // candidates at the highest total
  int64_t top_total = 0;
};

struct DeviceChoice {
  std::vector<int> gpus;  // indices on the node, in the device picker's preference order
  int claim_units = 0;    // per GPU, after the reserve plugins (MIG: the instance's)
  int capacity_units = 1;
  int64_t gpu_memory_mib = 0;  // per GPU, as bound (HAMi: the resolved percentage)
};

struct AttemptExplanation {
  double time_s = 0;
  std::vector<PassExplanation> passes;
  bool placed = false;
  bool indexed = false;  // the run decided on an index (its own pass visited fewer nodes)
  bool sampled = false;  // percentageOfNodesToScore: the run scored a sample of the candidates
  std::optional<NodeId> node;
  bool node_in_top_ties = false;  // the run's node is among the explanation's top totals
  DeviceChoice device;
  // A failed attempt: the reasons of its last pass (empty with candidates: the device picker or a
  // reserve plugin refused the node selected).
  std::vector<RejectionCount> blocked;
};

struct ExplainedScorer {
  std::string name;
  int64_t weight = 1;
  bool normalizes = false;
};

struct PlacementExplanation {
  std::string pod;
  uint32_t pod_index = 0;
  std::string policy;     // the scenario's policy name (set by the caller)
  std::string outcome;    // the pod's end in the run (set by the caller; may be empty)
  std::string placement;  // PlacementPolicy::describe()
  std::vector<ExplainedScorer> scorers;
  bool lone_scorer = false;  // one scorer: its score is the total (its weight changes no order)
  std::string picker;
  std::string tie_break;
  std::vector<std::string> node_names;  // the cluster's, by node id
  ExplainOptions options;
  std::vector<AttemptExplanation> attempts;
};

// The observer the engine calls around the explained pod's scheduling attempts.
class PlacementExplainer {
 public:
  PlacementExplainer(uint32_t pod, ExplainOptions options) : pod_(pod) {
    result_.pod_index = pod;
    result_.options = options;
  }
  uint32_t pod() const { return pod_; }

  // Before the run's PlacementPolicy::schedule(cycle): the attempt as the full pass sees it.
  void before(const PlacementPolicy& policy, const SchedulingCycle& cycle);
  // After it: what the run decided (`gpus` the device picker's, cycle.req as reserved).
  void after(const PlacementPolicy& policy, const SchedulingCycle& cycle,
             std::optional<NodeId> node, std::span<const GpuId> gpus);

  PlacementExplanation& result() { return result_; }
  const PlacementExplanation& result() const { return result_; }

 private:
  uint32_t pod_;
  PlacementExplanation result_;
  std::vector<std::pair<NodeId, int64_t>> last_totals_;  // before()'s candidates and totals
};

// `slicelab explain --format json`'s document (slicelab.explain/1, docs/explain.md).
nlohmann::ordered_json explanation_json(const PlacementExplanation& e);
// The text `slicelab explain` prints.
std::string explanation_text(const PlacementExplanation& e);

}  // namespace slicelab
