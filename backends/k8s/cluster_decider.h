// One view of the cluster the extender decides on: the simulator's ClusterState, sharing run
// and PlacementPolicy over the nodes and pods seen, with the pods' bindings replayed into it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "backends/k8s/decision_log.h"
#include "backends/k8s/gpu_allocation_snapshot.h"
#include "backends/k8s/node_name_index.h"
#include "sim/cluster_state.h"
#include "sim/gpu_catalog.h"
#include "sim/metrics/fragmentation.h"
#include "sim/placement/placement_config.h"
#include "sim/placement/placement_policy.h"
#include "sim/scenario/kube_import.h"
#include "sim/sharing/sharing_mode.h"
#include "sim/sharing/sharing_run.h"
#include "workloads/pod_spec.h"
#include "workloads/rng.h"

namespace slicelab::k8s {

// A node as the decider holds it: its name and what the import reads of it.
struct DeciderNode {
  std::string name;
  KubeNodeFacts facts;
  friend bool operator==(const DeciderNode& a, const DeciderNode& b) {
    return a.name == b.name && a.facts.cpu_milli == b.facts.cpu_milli &&
           a.facts.memory_mib == b.facts.memory_mib && a.facts.model == b.facts.model &&
           a.facts.gpus == b.facts.gpus && a.facts.product == b.facts.product;
  }
};

// What a scheduling cycle decided (nothing is held: the reservation was undone).
struct Decision {
  std::optional<std::string> node;    // the policy's choice
  std::vector<int> gpus;              // its GPUs, local indices on that node
  std::vector<std::string> feasible;  // every node that passed the filters, node order
  std::vector<int64_t> totals;        // their weighted score totals (empty when none chosen)
  int64_t max_total = 0;              // the largest total a node can reach
  std::map<std::string, std::string> rejected;  // node -> the filter that rejected it
  // `feasible` and the choice as the view's node ids, valid while the view's generation is
  // `generation` (ClusterDecider::generation()): prioritize scores by id without a lookup.
  std::vector<NodeId> feasible_ids;
  std::optional<NodeId> node_id;
  uint64_t generation = 0;
};

// A request's node names resolved to the view's ids once (kUnknownNode for a name the view
// lacks), as of the view's generation `generation`.
inline constexpr NodeId kUnknownNode = UINT32_MAX;
struct ResolvedNodes {
  std::vector<NodeId> ids;  // parallel to the names
  uint64_t generation = 0;
};

// A pod bound in this view.
struct BoundPod {
  std::string node;
  std::vector<int> gpus;  // local indices
  PodRequest request;     // as reserved (the sharing mode may have rewritten it)
};

class ClusterDecider {
 public:
  // `scenario_order` ranks node names (the scenario's own nodes first, in its order) so that a
  // cluster built from a scenario has the simulator's node order whatever order the watch
  // reports it in; other nodes follow by name.
  ClusterDecider(const GpuCatalog& catalog, const SharingMode& mode,
                 const PlacementConfig& placement, const PlacementEnvironment& env, uint64_t seed,
                 std::vector<std::string> scenario_order);

  // Nodes: a change of facts rebuilds the view (bindings replayed); equal facts cost nothing.
  void set_node(const DeciderNode& node);
  void remove_node(const std::string& name);
  // Node changes only mark the view stale; decide, bind and release refresh it first, and the
  // watch's owner calls refresh() after a batch (a list of 1,000 nodes is one rebuild, not
  // 1,000). The const queries answer as of the last refresh.
  // True when it rebuilt.
  bool refresh() {
    if (!stale_) return false;
    rebuild();
    return true;
  }
  bool has_node(std::string_view name) const { return node_ids_.contains(name); }
  // The node's index in the view as of the last refresh (0..node_count()), if it has the node.
  std::optional<NodeId> node_id(std::string_view name) const { return node_ids_.find(name); }
  size_t node_count() const { return nodes_.size(); }
  // Bumped by every rebuild: ids from an older generation may name other nodes.
  uint64_t generation() const { return generation_; }
  // `names` as ids of the view as of the last refresh (one lookup each).
  ResolvedNodes resolve(const std::vector<std::string>& names) const;

  // One scheduling cycle for the pod (by key "<ns>/<name>") on `nodes` (all when null); the
  // random tie-break draws from the view's seeded Rng as the simulator's cycle does.
  Decision decide(const std::string& key, const PodSpec& spec,
                  const std::vector<std::string>* nodes);
  // The same with `nodes` already resolved (`resolved`, from resolve(*nodes)): re-resolved in
  // place when the refresh rebuilt the view since, so that the caller holds the current ids.
  Decision decide(const std::string& key, const PodSpec& spec,
                  const std::vector<std::string>& nodes, ResolvedNodes& resolved);
  // Binds the pod on `node`: its GPUs `gpus` when given and still fitting, else the device
  // picker's; then the reserve plugins. Returns an error text, empty on success.
  std::string bind(const std::string& key, const PodSpec& spec, const std::string& node,
                   const std::vector<int>* gpus);
  // The pod ended or vanished: what it held is given back. False when it held nothing here.
  bool release(const std::string& key);
  const BoundPod* bound(const std::string& key) const;
  size_t bound_count() const { return bound_.size(); }

  // The FGD paper's fragmentation of the current state for `target`, in GPUs.
  double fragmented_gpus(const TargetWorkload& target) const;
  // What each node's GPUs hold, in HAMi's units, for /metrics: nodes in node order, pods by key
  // (a share without its own memory request counts its part of the card's memory).
  void gpu_allocation(GpuAllocationSnapshot& out) const;
  int64_t gpu_memory_capacity(const std::string& node) const;
  // A request in this view's capacity units (for no-GPU checks and the annotation's shares).
  PodRequest request_of(const PodSpec& spec) const;
  int capacity_units() const { return mode_.capacity_units(); }
  // Logs the explanation of every decision into `log` under the policy name `policy` (null: none,
  // the default; a decision then pays one test). `log` outlives the decider.
  void set_decision_log(DecisionLog* log, std::string policy) {
    log_ = log;
    log_policy_ = std::move(policy);
  }

 private:
  class NodeSetPreFilter final : public PreFilter {
   public:
    std::string_view name() const override { return "extender-node-names"; }
    bool pre_filter(const SchedulingCycle& cycle, std::vector<NodeId>& nodes) override;
    std::vector<uint8_t> allowed;  // per node; empty: all
  };
  void rebuild();
  Decision decide_ids(const std::string& key, const PodSpec& spec, const ResolvedNodes* resolved);
  bool stale_ = false;
  uint64_t generation_ = 0;
  uint32_t slot_for(const std::string& key, const PodSpec& spec);
  void free_slot(const std::string& key);

  const GpuCatalog& catalog_;
  const SharingMode& mode_;
  PlacementPolicy policy_;
  Rng rng_;
  std::unordered_map<std::string, size_t> order_rank_;
  std::vector<DeciderNode> nodes_;  // in node order
  NodeNameIndex node_ids_;          // nodes_'s names as of the last rebuild
  ClusterSpec spec_;
  std::unique_ptr<ClusterState> cluster_;
  std::unique_ptr<SharingRun> run_;
  NodeSetPreFilter node_names_;
  // Pods by slot: the sharing run holds spans of these, so they only grow in a rebuild.
  std::vector<PodSpec> specs_;
  std::vector<PodRequest> requests_;
  std::vector<uint32_t> free_slots_;
  std::unordered_map<std::string, uint32_t> slots_;
  std::map<std::string, BoundPod> bound_;
  std::map<uint64_t, std::string> bind_order_;  // replay order
  std::unordered_map<std::string, uint64_t> bind_seq_;
  uint64_t next_seq_ = 0;
  std::vector<GpuId> pick_;
  DecisionLog* log_ = nullptr;
  std::string log_policy_;
};

}  // namespace slicelab::k8s
