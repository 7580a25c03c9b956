// The cluster state the scheduler extender decides on: the scenario's sharing mode and placement
// policy (the simulator's own plugins) over the nodes and pods the watch reports, answering
// kube-scheduler's filter, prioritize and bind; in shadow mode, what slicelab would have done.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backends/k8s/cluster_decider.h"
#include "backends/k8s/cluster_io.h"
#include "backends/k8s/extender_wire.h"
#include "backends/k8s/shadow_decision_sink.h"
#include "sim/metrics/fragmentation.h"
#include "sim/scenario/scenario.h"

namespace slicelab::k8s {

struct ExtenderOptions {
  // Filter answers every feasible node instead of only the policy's choice (kube-scheduler's
  // own scores may then pick another; prioritize still ranks the choice first).
  bool filter_returns_all = false;
  // Prioritize-only and changes nothing: every node scores 0, filter passes every node, bind
  // refuses; slicelab's choices are applied to a second, counterfactual state.
  bool shadow = false;
  // How long filter's decision for a pod lets bind bind it: kube-scheduler binds right after
  // filter, unless a PreBind plugin holds the pod (VolumeBinding waits up to its
  // bindTimeoutSeconds, 600 s by default): that, and a minute more.
  std::chrono::milliseconds decision_ttl{std::chrono::seconds(660)};
  // Keep the explanation of the last kMaxLoggedDecisions decisions for GET /explain
  // (docs/explain.md); off, a decision pays one test for it.
  bool explain_log = false;
};

// Decisions kept at most (filter's for bind, prioritize's for scoring): a flood of filter
// requests for made-up pods evicts the oldest, it does not grow memory.
inline constexpr size_t kMaxKeptDecisions = 10000;

// Shadow mode's running figures (docs/extender.md#shadow-mode).
struct ShadowFigures {
  uint64_t decisions = 0;               // pods slicelab placed in its counterfactual state
  uint64_t same_node = 0;               // of the pods bound since, those on slicelab's node
  uint64_t different_node = 0;          // those on another node
  uint64_t pending_placeable = 0;       // pending now, yet placed in the counterfactual state
  double fragmented_gpus_actual = 0;    // the FGD measure over the observed state, in GPUs
  double fragmented_gpus_slicelab = 0;  // over the counterfactual state
};

// A plain snapshot for /metrics; per-GPU figures come from gpu_allocation().
struct ExtenderSnapshot {
  bool ready = false;
  size_t nodes = 0;
  size_t pods_known = 0;
  size_t pods_bound = 0;
  uint64_t filter_requests = 0, prioritize_requests = 0, bind_requests = 0;
  uint64_t bind_errors = 0;
  // Binds refused by bind's checks (not filtered, expired, wrong UID, not pending, node not
  // passed), before anything was written; counted in bind_errors too.
  uint64_t binds_refused = 0;
  // Watched objects that could not be read: a bad quantity, and the items and events the watch
  // itself skipped (not JSON, nested too deep, over its memory limit).
  uint64_t objects_rejected = 0;
  std::optional<ShadowFigures> shadow;
};

class ExtenderState final : public ClusterWatchSink {
 public:
  // `scenario` outlives the state; `policy` is one of its policies.
  ExtenderState(const Scenario& scenario, const PolicySpec& policy, uint64_t seed,
                ExtenderOptions options);

  // ClusterWatchSink: the watcher's threads call these.
  void list_started(WatchKind kind) override;
  void apply(WatchKind kind, WatchEvent event, const nlohmann::json& object) override;
  void synced(WatchKind kind) override;
  void rejected(WatchKind kind, const std::string& why) override;
  // An offline source (snapshot files): every object added, both kinds synced.
  void load(const KubeObjects& objects);
  bool ready() const;

  ExtenderFilterResult filter(const ExtenderArgs& args);
  std::vector<HostPriority> prioritize(const ExtenderArgs& args);
  // Binds only what this extender's filter decided (docs/extender.md#bind-and-the-annotation):
  // the pod's unexpired, unused filter decision, with the request's PodUID equal to the filtered
  // Pod's metadata.uid, to a node filter passed; the pod pending (phase Pending, no
  // deletionTimestamp) and unbound in the watch's view and in a fresh read through `writer`.
  // Then chooses the GPUs (reserved under the lock) and, outside it, patches the pod's
  // annotation (the UID as a precondition) and posts the Binding (with the UID); a failed write
  // gives the reservation back. A refused bind writes nothing.
  ExtenderBindingResult bind(const ExtenderBindingArgs& args, ClusterWriter& writer);

  // Shadow mode: each pod placed in the counterfactual state is also reported to `sink` (under
  // the state's lock). Set before the watches start; `sink` outlives the state's use of it.
  void set_decision_sink(ShadowDecisionSink* sink);

  ExtenderSnapshot snapshot() const;
  // The actual state's GPUs as /metrics reports them (HAMi's figures).
  GpuAllocationSnapshot gpu_allocation() const;
  // For tests: where the pod is bound in the actual (or, in shadow mode, counterfactual) state.
  std::optional<BoundPod> bound(const std::string& pod_key, bool counterfactual = false) const;
  const std::string& policy_name() const { return policy_name_; }
  // GET /explain: the pod's logged decisions (slicelab.explain-log/1), nullopt when none.
  bool explain_log_on() const { return options_.explain_log; }
  std::optional<std::string> explain(std::string_view pod_key) const {
    return decision_log_.lookup(pod_key);
  }

 private:
  struct PodRecord {
    KubePod pod;
    PodSpec spec;
  };
  using Clock = std::chrono::steady_clock;
  struct CachedDecision {
    PodSpec spec;
    Decision decision;
    // Filter's decisions only (prioritize's serve its scores): what bind may bind.
    bool filtered = false;
    std::string uid;                  // the filtered Pod's metadata.uid
    std::vector<std::string> passed;  // the nodes filter passed
    Clock::time_point expires{};
    uint64_t seq = 0;  // its entry in decision_order_
  };
  // One filter or prioritize request as plain values (the parse step, which changes nothing):
  // the candidate nodes, the ones the view lacks read from the request, and the pod.
  struct ParsedRequest {
    // The candidates, in the request's order: the request's NodeNames themselves (not copied)
    // when it has them, else the names read from its Nodes.
    const std::vector<std::string>& node_names() const {
      return given_names != nullptr ? *given_names : read_names;
    }
    const std::vector<std::string>* given_names = nullptr;  // ExtenderArgs::node_names
    std::vector<std::string> read_names;
    bool carries_nodes = false;  // Nodes (not nodeCacheCapable), not NodeNames
    std::vector<std::pair<std::string, KubeNodeFacts>> new_nodes;  // Nodes the view lacks
    uint64_t unreadable_nodes = 0;                                 // Nodes that could not be read
    std::optional<KubePod> pod;
    std::exception_ptr pod_error;  // why the Pod could not be read, when `pod` is empty
    bool pod_deleting = false;     // metadata.deletionTimestamp is set
    // node_names() as the view's ids (resolve_nodes(), after admit_request_nodes()): each name
    // is looked up once per request.
    ResolvedNodes resolved;
  };
  ParsedRequest parse_request(const ExtenderArgs& args) const;
  // The view before deciding: the request's new nodes added and, for a request that carries
  // its nodes, the view rebuilt once, as a watch batch is.
  void admit_request_nodes(ParsedRequest& request);
  // The pod as the simulator's request (the translate step); throws the parse step's
  // InputError for a pod that could not be read, or one for a pod that cannot be translated.
  PodSpec translate(const ParsedRequest& request) const;
  // Filter's decision for a readable pod: the nodes to pass, failed nodes in `result`.
  std::vector<std::string> decide_filter(ParsedRequest& request, const PodSpec& spec,
                                         ExtenderFilterResult& result);
  void synced_locked(WatchKind kind);  // synced() under the lock
  void refresh();                      // node changes take effect (one rebuild per batch)
  void apply_node(const KubeNode& node);
  void set_node(const std::string& name, const KubeNodeFacts& facts);
  void remove_node(const std::string& name);
  void apply_pod(const KubePod& pod);
  void remove_pod(const std::string& key);
  void account_bound(const std::string& key, const PodRecord& record);
  PodSpec spec_of(const KubePod& pod) const;
  void shadow_decide(const std::string& key, const std::string& uid, const PodSpec& spec);
  std::string annotation_for(const std::string& key, const std::string& node) const;
  // Keeps `d` for `key`, evicting expired decisions and, past kMaxKeptDecisions, the oldest.
  void keep_decision(const std::string& key, CachedDecision d);
  void prune_decisions(Clock::time_point now);
  // Refuses a bind: counted, nothing written.
  ExtenderBindingResult refuse(const std::string& why);

  const Scenario& scenario_;
  std::string policy_name_;
  ExtenderOptions options_;
  std::unique_ptr<SharingMode> mode_;
  TargetWorkload target_;
  mutable std::mutex mu_;
  DecisionLog decision_log_;  // before the deciders that log into it
  ClusterDecider actual_;
  std::unique_ptr<ClusterDecider> counterfactual_;  // shadow mode only
  std::map<std::string, KubeNodeFacts> node_facts_;
  // node_facts_'s values in name order, for spec_of(); rebuilt there when stale (under mu_).
  mutable std::vector<KubeNodeFacts> facts_list_;
  mutable bool facts_stale_ = false;
  std::unordered_map<std::string, PodRecord> pods_;
  std::unordered_map<std::string, CachedDecision> decisions_;
  std::deque<std::pair<uint64_t, std::string>> decision_order_;  // (seq, key), oldest first
  uint64_t next_seq_ = 1;
  std::unordered_map<std::string, std::string> shadow_choice_;  // pod -> slicelab's node
  std::set<std::string> compared_;
  bool listing_[2] = {false, false};
  bool synced_[2] = {false, false};
  std::set<std::string> seen_[2];
  // The last request Pod read (the object and what kube_pod_from_json made of it), under mu_.
  mutable std::optional<std::pair<nlohmann::json, KubePod>> last_pod_;
  // The last request's node names and their ids, under mu_: kube-scheduler sends the same list
  // to filter and prioritize, and pod after pod; comparing it costs a fraction of resolving it.
  std::vector<std::string> last_names_;
  ResolvedNodes last_resolved_;
  ExtenderSnapshot counters_;
  ShadowFigures shadow_;
  ShadowDecisionSink* decision_sink_ = nullptr;  // under mu_
};

}  // namespace slicelab::k8s
