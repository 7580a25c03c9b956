#include "backends/k8s/extender_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "backends/k8s/gpu_assignment.h"
#include "backends/k8s/heap_release.h"
#include "sim/scenario/snapshot_reader.h"
#include "sim/sharing/sharing_config.h"
#include "workloads/bounded_json.h"
#include "workloads/input_error.h"
#include "workloads/kube/kube_json_objects.h"

namespace slicelab::k8s {
namespace {

// A real Pod object takes a few KB parsed; one far larger is not kept past its request.
constexpr size_t kMaxKeptPodBytes = size_t{256} << 10;

size_t kind_index(WatchKind kind) {
  return kind == WatchKind::Node ? 0 : 1;
}

bool finished(const KubePod& pod) {
  return pod.phase == "Succeeded" || pod.phase == "Failed";
}

std::string object_name(const nlohmann::json& object) {
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return {};
  const auto name = meta->find("name");
  if (name == meta->end() || !name->is_string()) return {};
  std::string ns = "default";
  if (const auto n = meta->find("namespace"); n != meta->end() && n->is_string())
    ns = n->get<std::string>();
  return ns + "/" + name->get<std::string>();
}

std::string bare_name(const std::string& key) {
  return key.substr(key.find('/') + 1);
}

// metadata.deletionTimestamp is set: the pod is going away and must not be bound.
bool deleting(const nlohmann::json& object) {
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return false;
  const auto ts = meta->find("deletionTimestamp");
  return ts != meta->end() && !ts->is_null();
}

// Pending and unbound: what a pod must be for the scheduler (and so the extender) to bind it.
bool bindable(const std::string& phase, const std::string& node_name, bool is_deleting,
              std::string& why) {
  if (is_deleting) {
    why = "it is being deleted";
  } else if (!node_name.empty()) {
    why = "it is already bound to node " + node_name;
  } else if (!phase.empty() && phase != "Pending") {
    why = "its phase is " + phase + ", not Pending";
  } else {
    return true;
  }
  return false;
}

}  // namespace

ExtenderState::ExtenderState(const Scenario& scenario, const PolicySpec& policy, uint64_t seed,
                             ExtenderOptions options)
    : scenario_(scenario),
      policy_name_(policy.name),
      options_(options),
      mode_(make_sharing_mode(policy.sharing)),
      target_(TargetWorkload::from_pods(
          scenario.target_pods.empty() ? scenario.pods : scenario.target_pods, scenario.catalog)),
      actual_(scenario.catalog, *mode_, policy.placement,
              PlacementEnvironment{scenario.pods, &scenario.catalog, scenario.target_pods}, seed,
              cluster_node_names(scenario.cluster)) {
  if (options_.shadow)
    counterfactual_ = std::make_unique<ClusterDecider>(
        scenario.catalog, *mode_, policy.placement,
        PlacementEnvironment{scenario.pods, &scenario.catalog, scenario.target_pods}, seed,
        cluster_node_names(scenario.cluster));
  // Shadow mode decides in its counterfactual state: those are slicelab's decisions.
  if (options_.explain_log)
    (counterfactual_ ? *counterfactual_ : actual_).set_decision_log(&decision_log_, policy_name_);
}

// --- the watch ---

void ExtenderState::list_started(WatchKind kind) {
  std::lock_guard lock(mu_);
  listing_[kind_index(kind)] = true;
  seen_[kind_index(kind)].clear();
}

void ExtenderState::apply(WatchKind kind, WatchEvent event, const nlohmann::json& object) {
  std::lock_guard lock(mu_);
  const size_t k = kind_index(kind);
  try {
    if (kind == WatchKind::Node) {
      const KubeNode node = kube_node_from_json(object, "watched Node");
      if (listing_[k]) seen_[k].insert(node.name);
      if (event == WatchEvent::Deleted)
        remove_node(node.name);
      else
        apply_node(node);
      if (!listing_[k]) refresh();
    } else {
      const KubePod pod = kube_pod_from_json(object, "watched Pod");
      if (listing_[k]) seen_[k].insert(pod.name);
      if (event == WatchEvent::Deleted)
        remove_pod(pod.name);
      else
        apply_pod(pod);
    }
  } catch (const InputError&) {
    // An object slicelab cannot read (an unknown GPU product, a bad quantity): left out, and
    // counted; a deletion still removes it.
    ++counters_.objects_rejected;
    if (event == WatchEvent::Deleted) {
      std::string key = object_name(object);
      if (kind == WatchKind::Node) {
        remove_node(bare_name(key));
      } else if (!key.empty()) {
        remove_pod(key);
      }
    }
  }
}

void ExtenderState::synced(WatchKind kind) {
  synced_locked(kind);
  // A list's pages and objects are freed by now: their heap goes back to the system (most of the
  // resident memory after reading 5,000 nodes), outside the lock.
  release_free_heap();
}

void ExtenderState::synced_locked(WatchKind kind) {
  std::lock_guard lock(mu_);
  const size_t k = kind_index(kind);
  if (listing_[k]) {
    std::vector<std::string> gone;
    if (kind == WatchKind::Node) {
      for (const auto& [name, facts] : node_facts_)
        if (!seen_[k].contains(name)) gone.push_back(name);
      for (const std::string& name : gone) remove_node(name);
    } else {
      for (const auto& [key, record] : pods_)
        if (!seen_[k].contains(key)) gone.push_back(key);
      for (const std::string& key : gone) remove_pod(key);
    }
    listing_[k] = false;
    seen_[k].clear();
  }
  refresh();
  synced_[k] = true;
}

void ExtenderState::rejected(WatchKind /*kind*/, const std::string& /*why*/) {
  std::lock_guard lock(mu_);
  ++counters_.objects_rejected;
}

void ExtenderState::load(const KubeObjects& objects) {
  std::lock_guard lock(mu_);
  for (const KubeNode& n : objects.nodes) {
    try {
      apply_node(n);
    } catch (const InputError&) {
      ++counters_.objects_rejected;
    }
  }
  for (const KubePod& p : objects.pods) {
    try {
      apply_pod(p);
    } catch (const InputError&) {
      ++counters_.objects_rejected;
    }
  }
  refresh();
  synced_[0] = synced_[1] = true;
}

bool ExtenderState::ready() const {
  std::lock_guard lock(mu_);
  return synced_[0] && synced_[1];
}

void ExtenderState::refresh() {
  if (counterfactual_) counterfactual_->refresh();
  if (!actual_.refresh()) return;
  // Pods seen on nodes the state did not know yet (pods listed before their node) are
  // accounted now that the node is there.
  for (const auto& [key, record] : pods_)
    if (!record.pod.node_name.empty() && actual_.bound(key) == nullptr &&
        actual_.has_node(record.pod.node_name))
      account_bound(key, record);
}

void ExtenderState::apply_node(const KubeNode& node) {
  set_node(node.name, kube_node_facts(node, scenario_.catalog));
}

void ExtenderState::set_node(const std::string& name, const KubeNodeFacts& facts) {
  node_facts_[name] = facts;
  facts_stale_ = true;
  actual_.set_node({name, facts});
  if (counterfactual_) counterfactual_->set_node({name, facts});
}

void ExtenderState::remove_node(const std::string& name) {
  if (node_facts_.erase(name) == 0) return;
  facts_stale_ = true;
  actual_.remove_node(name);
  if (counterfactual_) counterfactual_->remove_node(name);
}

PodSpec ExtenderState::spec_of(const KubePod& pod) const {
  // Rebuilt when first needed after node changes, not at each change: a list of 5,000 nodes
  // copied the list 5,000 times.
  if (facts_stale_) {
    facts_list_.clear();
    facts_list_.reserve(node_facts_.size());
    for (const auto& [n, f] : node_facts_) facts_list_.push_back(f);
    facts_stale_ = false;
  }
  KubePodConversion notes;
  return kube_pod_spec(pod, facts_list_, scenario_.catalog, notes);
}

// A pod seen on the watch. Bound (spec.nodeName) and not yet accounted: its GPUs are the
// annotation's when the extender chose them, else the device picker's (what a device plugin
// would allocate). Finished: what it held is given back.
void ExtenderState::apply_pod(const KubePod& pod) {
  const std::string& key = pod.name;
  if (finished(pod)) {
    remove_pod(key);
    return;
  }
  PodRecord& record = pods_[key];
  record.pod = pod;
  record.spec = spec_of(pod);
  if (pod.node_name.empty()) {
    if (counterfactual_ && record.spec.gpu_count > 0) shadow_decide(key, pod.uid, record.spec);
    return;
  }
  decisions_.erase(key);
  if (actual_.bound(key) == nullptr) account_bound(key, record);
  if (counterfactual_ && !compared_.contains(key)) {
    if (const auto it = shadow_choice_.find(key); it != shadow_choice_.end()) {
      compared_.insert(key);
      ++(it->second == pod.node_name ? shadow_.same_node : shadow_.different_node);
    } else if (record.spec.gpu_count > 0 && counterfactual_->bound(key) == nullptr) {
      // Bound before slicelab saw it pending (it ran before the extender started): the
      // counterfactual state holds it where it runs.
      (void)counterfactual_->bind(key, record.spec, pod.node_name, nullptr);
    }
  }
}

// A pod bound elsewhere (or by this extender before a restart): on the annotation's GPUs when it
// has one for this node, else the device picker's.
void ExtenderState::account_bound(const std::string& key, const PodRecord& record) {
  std::optional<std::vector<int>> gpus;
  if (!record.pod.gpu_assignment.empty()) {
    std::string error;
    if (const auto a = parse_gpu_assignment(record.pod.gpu_assignment, error);
        a && a->node == record.pod.node_name) {
      gpus.emplace();
      for (const AssignedGpu& g : a->gpus) gpus->push_back(g.index);
    }
  }
  // A pod that does not fit where it runs (the node over-committed by others) is not accounted.
  (void)actual_.bind(key, record.spec, record.pod.node_name, gpus ? &*gpus : nullptr);
}

void ExtenderState::remove_pod(const std::string& key) {
  pods_.erase(key);
  decisions_.erase(key);
  actual_.release(key);
  if (counterfactual_) {
    counterfactual_->release(key);
    shadow_choice_.erase(key);
    compared_.erase(key);
  }
}

// Shadow mode: slicelab's own choice for a pending pod, applied to the counterfactual state.
void ExtenderState::shadow_decide(const std::string& key, const std::string& uid,
                                  const PodSpec& spec) {
  if (shadow_choice_.contains(key) || counterfactual_->bound(key) != nullptr) return;
  const Decision d = counterfactual_->decide(key, spec, nullptr);
  if (!d.node) return;  // tried again at its next event or prioritize
  if (counterfactual_->bind(key, spec, *d.node, &d.gpus).empty()) {
    shadow_choice_.emplace(key, *d.node);
    ++shadow_.decisions;
    if (decision_sink_ != nullptr)
      decision_sink_->decided({key, uid, *d.node, d.gpus, d.feasible.size()});
  }
}

void ExtenderState::set_decision_sink(ShadowDecisionSink* sink) {
  std::lock_guard lock(mu_);
  decision_sink_ = sink;
}

// --- the extender's verbs ---

// A request is answered in three steps, in a straight line: parse (the pod and the nodes the view
// lacks, read into plain values; nothing changes), the view made whole once (those nodes added,
// one rebuild), translate (the pod into the simulator's request, once), then decide.

ExtenderState::ParsedRequest ExtenderState::parse_request(const ExtenderArgs& args) const {
  ParsedRequest request;
  if (args.node_names) {
    request.given_names = &*args.node_names;
  } else {
    request.carries_nodes = true;
    std::set<std::string> read;  // new nodes read so far: a repeated one is read once
    for (const nlohmann::json& node : *args.nodes) {
      std::string name = bare_name(object_name(node));
      if (name.empty()) continue;
      // Not nodeCacheCapable: the request carries the nodes, so one not seen yet is read here.
      if (!node_facts_.contains(name) && !read.contains(name)) {
        try {
          const KubeNode n = kube_node_from_json(node, "request Nodes");
          KubeNodeFacts facts = kube_node_facts(n, scenario_.catalog);
          read.insert(n.name);
          request.new_nodes.emplace_back(n.name, std::move(facts));
        } catch (const InputError&) {
          ++request.unreadable_nodes;
        }
      }
      request.read_names.push_back(std::move(name));
    }
  }
  // kube-scheduler sends the same Pod to filter and then to prioritize: the reading (a pure
  // function of the object) is kept for the last Pod read, and reused while the Pod is equal.
  if (last_pod_ && last_pod_->first == args.pod) {
    request.pod = last_pod_->second;
  } else {
    try {
      request.pod = kube_pod_from_json(args.pod, "request Pod");
      // Only a Pod of a real Pod's size is kept: a huge one would hold its memory past its request.
      if (estimated_json_bytes(args.pod) <= kMaxKeptPodBytes) {
        last_pod_.emplace(args.pod, *request.pod);
      } else {
        last_pod_.reset();
      }
    } catch (...) {
      request.pod_error = std::current_exception();
    }
  }
  request.pod_deleting = deleting(args.pod);
  return request;
}

void ExtenderState::admit_request_nodes(ParsedRequest& request) {
  counters_.objects_rejected += request.unreadable_nodes;
  for (const auto& [name, facts] : request.new_nodes) set_node(name, facts);
  if (request.carries_nodes) refresh();
  // resolve() answers from the view of its generation: the same names, the same ids.
  const std::vector<std::string>& names = request.node_names();
  if (last_resolved_.generation == actual_.generation() && names == last_names_) {
    request.resolved = last_resolved_;
    return;
  }
  request.resolved = actual_.resolve(names);
  last_names_ = names;
  last_resolved_ = request.resolved;
}

PodSpec ExtenderState::translate(const ParsedRequest& request) const {
  if (!request.pod) std::rethrow_exception(request.pod_error);
  return spec_of(*request.pod);
}

void ExtenderState::prune_decisions(Clock::time_point now) {
  // Entries whose decision was replaced or used are stale (another seq, or gone): dropped as
  // they reach the front.
  while (!decision_order_.empty()) {
    const auto& [seq, key] = decision_order_.front();
    const auto it = decisions_.find(key);
    const bool stale = it == decisions_.end() || it->second.seq != seq;
    if (!stale && it->second.expires > now && decisions_.size() <= kMaxKeptDecisions) break;
    if (!stale) decisions_.erase(it);
    decision_order_.pop_front();
  }
  // Stale entries behind a long-lived one: rebuilt from the live decisions when they outnumber
  // them, so that the queue stays within a small multiple of kMaxKeptDecisions.
  if (decision_order_.size() > 2 * kMaxKeptDecisions) {
    decision_order_.clear();
    for (const auto& [key, d] : decisions_) decision_order_.emplace_back(d.seq, key);
    std::sort(decision_order_.begin(), decision_order_.end());
  }
}

void ExtenderState::keep_decision(const std::string& key, CachedDecision d) {
  const Clock::time_point now = Clock::now();
  d.expires = now + options_.decision_ttl;
  d.seq = next_seq_++;
  decision_order_.emplace_back(d.seq, key);
  decisions_.insert_or_assign(key, std::move(d));
  prune_decisions(now);
}

ExtenderFilterResult ExtenderState::filter(const ExtenderArgs& args) {
  std::lock_guard lock(mu_);
  ++counters_.filter_requests;
  ParsedRequest request = parse_request(args);
  admit_request_nodes(request);
  ExtenderFilterResult result;
  std::vector<std::string> pass;
  try {
    const PodSpec spec = translate(request);
    pass = decide_filter(request, spec, result);
  } catch (const InputError& e) {
    result.error = fmt::format("slicelab: {}", e.what());
    return result;
  }
  if (args.node_names) {
    result.node_names = std::move(pass);
  } else {
    result.nodes.emplace();
    std::set<std::string> keep(pass.begin(), pass.end());
    for (const nlohmann::json& node : *args.nodes)
      if (keep.contains(bare_name(object_name(node)))) result.nodes->push_back(node);
  }
  return result;
}

std::vector<std::string> ExtenderState::decide_filter(ParsedRequest& request, const PodSpec& spec,
                                                      ExtenderFilterResult& result) {
  const KubePod& pod = *request.pod;
  std::vector<std::string> pass;
  // Only a pod that is pending and unbound in the request gets a decision bind may use.
  std::string not_bindable;
  const bool grant =
      !options_.shadow && bindable(pod.phase, pod.node_name, request.pod_deleting, not_bindable);
  const auto granted = [&](Decision d) {
    CachedDecision c;
    c.spec = spec;
    c.decision = std::move(d);
    c.filtered = true;
    c.uid = pod.uid;
    c.passed = pass;
    return c;
  };
  if (spec.gpu_count == 0 || options_.shadow) {
    pass = request.node_names();                              // not slicelab's to decide
    if (grant) keep_decision(pod.name, granted(Decision{}));  // bind needs its request
    return pass;
  }
  const std::vector<std::string>& names = request.node_names();
  for (size_t i = 0; i < names.size(); ++i) {
    if (request.resolved.ids[i] == kUnknownNode)
      result.failed_nodes[names[i]] =
          "slicelab: node not known to the extender (no Node object seen)";
  }
  // decide() passes over the names the view does not know.
  Decision d = actual_.decide(pod.name, spec, names, request.resolved);
  for (const auto& [n, why] : d.rejected) result.failed_nodes[n] = "slicelab: " + why;
  if (options_.filter_returns_all) {
    pass = d.feasible;
  } else if (d.node) {
    // As HAMi's extender: only the choice passes, so kube-scheduler's own scores cannot
    // change it; the other feasible nodes are neither passed nor failed.
    pass = {*d.node};
  }
  if (d.node && grant) {
    keep_decision(pod.name, granted(std::move(d)));
  } else {
    decisions_.erase(pod.name);
  }
  return pass;
}

// Scores: the node the policy chose gets MaxExtenderPriority (10); every other feasible node
// floor(10 × total / max_total) capped at 9, where total is the framework's weighted integer
// total and max_total the largest it can reach (Σ weights × 100); infeasible and unknown nodes
// 0. In shadow mode, and for pods without GPUs, every node scores 0.
std::vector<HostPriority> ExtenderState::prioritize(const ExtenderArgs& args) {
  std::lock_guard lock(mu_);
  ++counters_.prioritize_requests;
  ParsedRequest request = parse_request(args);
  admit_request_nodes(request);
  const std::vector<std::string>& names = request.node_names();
  std::vector<HostPriority> out;
  out.reserve(names.size());
  for (const std::string& n : names) out.push_back({n, 0});
  PodSpec spec;
  try {
    spec = translate(request);
  } catch (const InputError&) {
    return out;  // prioritize has no error field: a pod it cannot read ranks no node
  }
  const KubePod& pod = *request.pod;
  if (spec.gpu_count == 0) return out;
  if (options_.shadow) {
    shadow_decide(pod.name, pod.uid, spec);
    return out;
  }
  auto it = decisions_.find(pod.name);
  if (it == decisions_.end() || it->second.expires <= Clock::now()) {
    Decision d = actual_.decide(pod.name, spec, names, request.resolved);  // unknown: passed over
    if (!d.node) return out;
    // For the scores only: bind does not accept it (filtered stays false).
    CachedDecision scores;
    scores.spec = spec;
    scores.decision = std::move(d);
    keep_decision(pod.name, std::move(scores));
    it = decisions_.find(pod.name);
  }
  const Decision& d = it->second.decision;
  // Scores by the view's node index (no map node per name); a decision's node the view no longer
  // has (removed since the decision) by name.
  std::vector<int64_t> by_id(actual_.node_count(), -1);
  std::unordered_map<std::string, int64_t> by_name;
  // The decision's ids are the view's while its generation is (no lookup); else by name.
  const bool same_view = d.generation == actual_.generation();
  const auto set_score = [&](const std::string& name, std::optional<NodeId> known, int64_t value) {
    const auto id = same_view && known ? known : actual_.node_id(name);
    if (id && *id < by_id.size()) {
      by_id[*id] = value;
    } else {
      by_name[name] = value;
    }
  };
  for (size_t i = 0; i < d.feasible.size(); ++i) {
    const int64_t total = i < d.totals.size() ? d.totals[i] : 0;
    const int64_t scaled = d.max_total > 0
                               ? std::clamp<int64_t>(kMaxExtenderPriority * total / d.max_total, 0,
                                                     kMaxExtenderPriority - 1)
                               : 0;
    set_score(d.feasible[i],
              i < d.feasible_ids.size() ? std::optional<NodeId>(d.feasible_ids[i]) : std::nullopt,
              scaled);
  }
  if (d.node) set_score(*d.node, d.node_id, kMaxExtenderPriority);
  const std::vector<NodeId>& ids = request.resolved.ids;
  for (size_t i = 0; i < out.size(); ++i) {
    HostPriority& p = out[i];
    if (const NodeId id = ids[i]; id != kUnknownNode && id < by_id.size()) {
      if (by_id[id] >= 0) p.score = by_id[id];
    } else if (const auto s = by_name.find(p.host); s != by_name.end()) {
      p.score = s->second;
    }
  }
  return out;
}

std::string ExtenderState::annotation_for(const std::string& key, const std::string& node) const {
  const BoundPod* b = actual_.bound(key);
  GpuAssignment a;
  a.node = node;
  a.policy = policy_name_;
  a.sharing = std::string(mode_->kind());
  const int64_t card_mib = actual_.gpu_memory_capacity(node);
  const bool whole = b->request.claim_units >= actual_.capacity_units();
  for (const int g : b->gpus) {
    AssignedGpu one;
    one.index = g;
    if (whole && b->request.gpu_memory_mib <= 0) {
      one.memory_mib = card_mib;
      one.cores = 100;
    } else {
      one.memory_mib = b->request.gpu_memory_mib > 0 ? b->request.gpu_memory_mib
                                                     : card_mib * b->request.gpu_milli / 1000;
      one.cores = whole ? 100 : b->request.gpu_milli / 10;
    }
    a.gpus.push_back(one);
  }
  return to_annotation(a);
}

ExtenderBindingResult ExtenderState::refuse(const std::string& why) {
  ++counters_.bind_errors;
  ++counters_.binds_refused;
  return {"slicelab: bind refused: " + why};
}

ExtenderBindingResult ExtenderState::bind(const ExtenderBindingArgs& args, ClusterWriter& writer) {
  const std::string key = args.pod_namespace + "/" + args.pod_name;
  CachedDecision granted;
  // 1. This extender's own records, under the lock: filter's decision (taken: a decision binds
  // once, whatever comes of it), its UID and nodes, and the watch's view of the pod.
  {
    std::lock_guard lock(mu_);
    ++counters_.bind_requests;
    if (options_.shadow) {
      ++counters_.bind_errors;
      return {"slicelab: the extender runs in shadow mode and binds nothing"};
    }
    prune_decisions(Clock::now());
    const auto d = decisions_.find(key);
    if (d == decisions_.end() || !d->second.filtered) {
      return refuse(fmt::format(
          "pod {} has no decision of this extender's filter (never filtered, already bound, "
          "or its decision expired after {} s)",
          key, std::chrono::duration_cast<std::chrono::seconds>(options_.decision_ttl).count()));
    }
    granted = std::move(d->second);
    decisions_.erase(d);
    if (args.pod_uid.empty())
      return refuse(fmt::format("the request for pod {} has no PodUID", key));
    if (granted.uid.empty()) {
      return refuse(fmt::format("the filtered Pod {} had no metadata.uid", key));
    }
    if (args.pod_uid != granted.uid) {
      return refuse(fmt::format("PodUID {} is not the UID {} of the pod {} that filter decided",
                                args.pod_uid, granted.uid, key));
    }
    if (std::find(granted.passed.begin(), granted.passed.end(), args.node) ==
        granted.passed.end()) {
      return refuse(fmt::format("filter did not pass node {} for pod {}", args.node, key));
    }
    // The watch may lag, but what it shows of this very pod (same UID) is already true.
    if (const auto p = pods_.find(key); p != pods_.end() && p->second.pod.uid == args.pod_uid) {
      std::string why;
      if (!bindable(p->second.pod.phase, p->second.pod.node_name, false, why)) {
        return refuse(fmt::format("pod {}: {}", key, why));
      }
    }
    if (actual_.bound(key) != nullptr) {
      return refuse(fmt::format("pod {} is already bound in the extender's state", key));
    }
  }
  // 2. The pod as the API server holds it now, before anything is written.
  const LivePodRead live = writer.read_pod(args.pod_namespace, args.pod_name);
  if (live.live) {
    std::string why;
    if (!live.error.empty()) {
      why = "cannot read it: " + live.error;
    } else if (live.pod.uid != args.pod_uid) {
      why = "its UID is " + live.pod.uid + ", not the request's " + args.pod_uid;
    } else {
      (void)bindable(live.pod.phase, live.pod.node_name, live.pod.deleting, why);
    }
    if (!why.empty()) {
      std::lock_guard lock(mu_);
      return refuse(fmt::format("pod {}: {}", key, why));
    }
  }
  // 3. The GPUs, reserved under the lock.
  std::map<std::string, std::string> annotations;
  {
    std::lock_guard lock(mu_);
    if (actual_.bound(key) != nullptr) {
      return refuse(fmt::format("pod {} is already bound in the extender's state", key));
    }
    const std::vector<int>* gpus =
        granted.decision.node == args.node ? &granted.decision.gpus : nullptr;
    const std::string error = actual_.bind(key, granted.spec, args.node, gpus);
    // A pod without GPUs on a node slicelab does not know still binds: not ours to refuse.
    if (!error.empty() && granted.spec.gpu_count > 0) {
      ++counters_.bind_errors;
      return {"slicelab: " + error};
    }
    if (granted.spec.gpu_count > 0 && actual_.bound(key) != nullptr)
      annotations.emplace(std::string(kGpuAssignmentAnnotation), annotation_for(key, args.node));
  }
  // 4. The writes, outside the lock; the UID rides on both, and the patch applies only to the
  // pod as the fresh read found it (its resourceVersion), so that nothing is written to a pod
  // bound by someone else between the read and the patch.
  const auto undo = [&](const std::string& error) {
    std::lock_guard lock(mu_);
    actual_.release(key);
    ++counters_.bind_errors;
    return ExtenderBindingResult{"slicelab: " + error};
  };
  if (!annotations.empty()) {
    const WriteResult w =
        writer.annotate_pod(args.pod_namespace, args.pod_name, args.pod_uid,
                            live.live ? live.pod.resource_version : std::string(), annotations);
    if (!w.ok()) return undo(w.error);
  }
  const WriteResult w = writer.bind_pod(args.pod_namespace, args.pod_name, args.pod_uid, args.node);
  if (!w.ok()) return undo(w.error);
  return {};
}

ExtenderSnapshot ExtenderState::snapshot() const {
  std::lock_guard lock(mu_);
  ExtenderSnapshot s = counters_;
  s.ready = synced_[0] && synced_[1];
  s.nodes = node_facts_.size();
  s.pods_known = pods_.size();
  s.pods_bound = actual_.bound_count();
  if (counterfactual_) {
    ShadowFigures f = shadow_;
    f.fragmented_gpus_actual = actual_.fragmented_gpus(target_);
    f.fragmented_gpus_slicelab = counterfactual_->fragmented_gpus(target_);
    f.pending_placeable = 0;
    for (const auto& [key, record] : pods_)
      if (record.pod.node_name.empty() && counterfactual_->bound(key) != nullptr)
        ++f.pending_placeable;
    s.shadow = f;
  }
  return s;
}

GpuAllocationSnapshot ExtenderState::gpu_allocation() const {
  std::lock_guard lock(mu_);
  GpuAllocationSnapshot out;
  actual_.gpu_allocation(out);
  return out;
}

std::optional<BoundPod> ExtenderState::bound(const std::string& pod_key,
                                             bool counterfactual) const {
  std::lock_guard lock(mu_);
  const ClusterDecider* d = counterfactual ? counterfactual_.get() : &actual_;
  if (d == nullptr) return std::nullopt;
  const BoundPod* b = d->bound(pod_key);
  return b ? std::optional<BoundPod>(*b) : std::nullopt;
}

}  // namespace slicelab::k8s
