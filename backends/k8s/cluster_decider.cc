#include "backends/k8s/cluster_decider.h"

#include <algorithm>

#include "sim/placement/paper_scorers.h"
#include "sim/placement/plugin_registry.h"
#include "sim/sharing/pod_request.h"

namespace slicelab::k8s {
namespace {

constexpr uint32_t kFirstSlots = 1024;

}  // namespace

bool ClusterDecider::NodeSetPreFilter::pre_filter(const SchedulingCycle& /*cycle*/,
                                                  std::vector<NodeId>& nodes) {
  if (allowed.empty()) return true;
  std::erase_if(nodes, [&](NodeId n) { return n >= allowed.size() || allowed[n] == 0; });
  return !nodes.empty();
}

ClusterDecider::ClusterDecider(const GpuCatalog& catalog, const SharingMode& mode,
                               const PlacementConfig& placement, const PlacementEnvironment& env,
                               uint64_t seed, std::vector<std::string> scenario_order)
    : catalog_(catalog),
      mode_(mode),
      policy_(build_placement(placement, env)),
      rng_(seed),
      specs_(kFirstSlots),
      requests_(kFirstSlots) {
  // A decision reports every feasible node and its total (prioritize): the full pass only.
  policy_.set_indexes(false);
  for (size_t i = 0; i < scenario_order.size(); ++i) order_rank_.emplace(scenario_order[i], i);
  for (uint32_t s = kFirstSlots; s-- > 0;) free_slots_.push_back(s);
  rebuild();
}

void ClusterDecider::set_node(const DeciderNode& node) {
  const auto it = std::find_if(nodes_.begin(), nodes_.end(),
                               [&](const DeciderNode& n) { return n.name == node.name; });
  if (it != nodes_.end()) {
    if (*it == node) return;
    *it = node;
  } else {
    nodes_.push_back(node);
  }
  stale_ = true;
}

void ClusterDecider::remove_node(const std::string& name) {
  if (std::erase_if(nodes_, [&](const DeciderNode& n) { return n.name == name; }) > 0)
    stale_ = true;
}

// Nodes (and so GPU ids) change: a fresh ClusterState and sharing run, the run's plugins
// attached as the engine attaches them, and every binding replayed in bind order on the GPUs it
// held. A binding whose node is gone is forgotten.
void ClusterDecider::rebuild() {
  stale_ = false;
  std::stable_sort(nodes_.begin(), nodes_.end(), [&](const DeciderNode& a, const DeciderNode& b) {
    const auto ra = order_rank_.find(a.name), rb = order_rank_.find(b.name);
    const size_t ka = ra != order_rank_.end() ? ra->second : SIZE_MAX;
    const size_t kb = rb != order_rank_.end() ? rb->second : SIZE_MAX;
    return ka != kb ? ka < kb : (ka == SIZE_MAX && a.name < b.name);
  });
  spec_.groups.clear();
  ++generation_;
  std::vector<std::string_view> names;
  names.reserve(nodes_.size());
  for (const DeciderNode& n : nodes_) names.push_back(n.name);
  node_ids_.assign(names);
  for (const DeciderNode& n : nodes_) {
    NodeGroup g;
    g.name = n.name;
    g.count = 1;
    g.cpu_milli = n.facts.cpu_milli;
    g.memory_mib = n.facts.memory_mib;
    g.gpu_model = n.facts.gpus > 0 ? n.facts.model : 0;
    g.gpus_per_node = n.facts.gpus;
    g.node_names = {n.name};
    spec_.groups.push_back(std::move(g));
  }
  run_.reset();  // holds a reference to the old cluster
  cluster_ = std::make_unique<ClusterState>(spec_, catalog_, mode_.capacity_units());
  const int max_gpus = cluster_->max_gpus_per_node();
  cluster_->track_shape_tags(2 * static_cast<size_t>(max_gpus + 1));
  for (const auto& [key, slot] : slots_) {
    requests_[slot] = make_pod_request(specs_[slot], mode_, catalog_);
    requests_[slot].shape_tag = clustering_tag(requests_[slot], mode_.capacity_units(), max_gpus);
  }
  run_ = mode_.start_run(RunSetup{*cluster_, catalog_, specs_, PodRequestView(requests_)});
  RunPlugins plugins = run_->plugins();
  plugins.pre_filters.insert(plugins.pre_filters.begin(), &node_names_);
  policy_.attach(plugins);
  pick_.assign(static_cast<size_t>(std::max(max_gpus, 1)), 0);

  std::map<std::string, BoundPod> old = std::move(bound_);
  bound_.clear();
  std::map<uint64_t, std::string> order = std::move(bind_order_);
  bind_order_.clear();
  bind_seq_.clear();
  for (const auto& [seq, key] : order) {
    const BoundPod& b = old.at(key);
    const uint32_t slot = slots_.at(key);
    if (!node_ids_.contains(b.node)) {
      free_slot(key);
      continue;
    }
    const std::string error = bind(key, specs_[slot], b.node, &b.gpus);
    (void)error;  // a binding that no longer fits (its node shrank) is forgotten
  }
}

uint32_t ClusterDecider::slot_for(const std::string& key, const PodSpec& spec) {
  if (const auto it = slots_.find(key); it != slots_.end()) return it->second;
  if (free_slots_.empty()) {
    // The sharing run holds spans of the tables: grow them, then build the run anew.
    const auto old = static_cast<uint32_t>(specs_.size());
    specs_.resize(2 * specs_.size());
    requests_.resize(specs_.size());
    for (uint32_t s = static_cast<uint32_t>(specs_.size()); s-- > old;) free_slots_.push_back(s);
    const uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    slots_.emplace(key, slot);
    specs_[slot] = spec;
    rebuild();
    return slot;
  }
  const uint32_t slot = free_slots_.back();
  free_slots_.pop_back();
  slots_.emplace(key, slot);
  specs_[slot] = spec;
  requests_[slot] = make_pod_request(spec, mode_, catalog_);
  requests_[slot].shape_tag =
      clustering_tag(requests_[slot], mode_.capacity_units(), cluster_->max_gpus_per_node());
  return slot;
}

void ClusterDecider::free_slot(const std::string& key) {
  const auto it = slots_.find(key);
  if (it == slots_.end()) return;
  specs_[it->second] = PodSpec{};
  free_slots_.push_back(it->second);
  slots_.erase(it);
}

PodRequest ClusterDecider::request_of(const PodSpec& spec) const {
  return make_pod_request(spec, mode_, catalog_);
}

ResolvedNodes ClusterDecider::resolve(const std::vector<std::string>& names) const {
  ResolvedNodes r;
  r.generation = generation_;
  r.ids.reserve(names.size());
  for (const std::string& name : names)
    r.ids.push_back(node_ids_.find(name).value_or(kUnknownNode));
  return r;
}

Decision ClusterDecider::decide(const std::string& key, const PodSpec& spec,
                                const std::vector<std::string>* nodes) {
  if (nodes == nullptr) return decide_ids(key, spec, nullptr);
  refresh();
  const ResolvedNodes resolved = resolve(*nodes);
  return decide_ids(key, spec, &resolved);
}

Decision ClusterDecider::decide(const std::string& key, const PodSpec& spec,
                                const std::vector<std::string>& nodes, ResolvedNodes& resolved) {
  refresh();
  if (resolved.generation != generation_ || resolved.ids.size() != nodes.size())
    resolved = resolve(nodes);
  return decide_ids(key, spec, &resolved);
}

// `resolved`: the candidates as ids of the current view (unknown ones kUnknownNode); null: all.
Decision ClusterDecider::decide_ids(const std::string& key, const PodSpec& spec,
                                    const ResolvedNodes* resolved) {
  refresh();
  Decision d;
  d.max_total = policy_.max_total();
  d.generation = generation_;
  const uint32_t slot = slot_for(key, spec);
  node_names_.allowed.clear();
  if (resolved != nullptr) {
    node_names_.allowed.assign(cluster_->node_count(), 0);
    for (const NodeId id : resolved->ids)
      if (id != kUnknownNode) node_names_.allowed[id] = 1;
  }
  PodRequest r = requests_[slot];
  SchedulingCycle cycle{*cluster_, r, slot, 0.0, rng_, 0, run_.get()};
  std::optional<NodeId> node;
  if (cluster_->node_count() > 0) {
    if (log_ == nullptr) {
      node = policy_.schedule(cycle, pick_);
    } else {
      // The same explanation as `slicelab explain` (sim/placement/placement_explanation.h).
      PlacementExplainer explainer(slot, kLoggedExplainOptions);
      explainer.before(policy_, cycle);
      node = policy_.schedule(cycle, pick_);
      explainer.after(policy_, cycle, node, pick_);
      PlacementExplanation& e = explainer.result();
      e.pod = key;
      e.policy = log_policy_;
      e.outcome = node ? "decided: " + nodes_[*node].name : "decided: no node";
      log_->add(key, e);
    }
  }
  std::vector<uint8_t> ok(cluster_->node_count(), 0);  // feasible: not explained below
  d.feasible.reserve(policy_.feasible().size());
  d.feasible_ids.reserve(policy_.feasible().size());
  for (const NodeId n : policy_.feasible()) {
    d.feasible.push_back(nodes_[n].name);
    d.feasible_ids.push_back(n);
    if (n < ok.size()) ok[n] = 1;
  }
  if (node.has_value()) {
    const NodeId chosen = node.value();
    const auto totals = policy_.totals();
    d.totals.assign(totals.begin(), totals.end());
    if (d.totals.size() != d.feasible.size()) d.totals.assign(d.feasible.size(), 0);
    d.node = nodes_[chosen].name;
    d.node_id = chosen;
    const GpuId first = cluster_->first_gpu(chosen);
    const auto gpus = std::span<const GpuId>(pick_).first(static_cast<size_t>(r.gpu_count));
    for (const GpuId g : gpus) d.gpus.push_back(static_cast<int>(g - first));
    // A decision, not a binding: the reservation is undone; bind() takes it again.
    policy_.unreserve(cycle, chosen, gpus);
  } else {
    d.totals.clear();
  }
  // Why each other node failed (the feasible ones that were not chosen are not rejected).
  const auto explain = [&](NodeId n) {
    if (ok[n] != 0) return;
    PodRequest rr = requests_[slot];
    SchedulingCycle c{*cluster_, rr, slot, 0.0, rng_, 0, run_.get()};
    const std::string_view by = policy_.rejected_by(c, n);
    d.rejected.emplace(nodes_[n].name,
                       by.empty() ? std::string("does not fit") : "rejected by " + std::string(by));
  };
  if (resolved == nullptr) {
    for (NodeId n = 0; n < cluster_->node_count(); ++n) explain(n);
  } else {
    for (const NodeId n : resolved->ids)
      if (n != kUnknownNode) explain(n);
  }
  if (!bound_.contains(key)) free_slot(key);
  return d;
}

std::string ClusterDecider::bind(const std::string& key, const PodSpec& spec,
                                 const std::string& node_name, const std::vector<int>* gpus) {
  refresh();
  if (bound_.contains(key)) return "pod " + key + " is already bound";
  const auto found = node_ids_.find(node_name);
  if (!found) return "node " + node_name + " is not known";
  const NodeId node = *found;
  const uint32_t slot = slot_for(key, spec);
  PodRequest r = requests_[slot];
  SchedulingCycle cycle{*cluster_, r, slot, 0.0, rng_, 0, run_.get()};
  const auto fail = [&](std::string why) {
    free_slot(key);
    return why;
  };
  if (!cluster_->fits(node, r) || !policy_.rejected_by(cycle, node).empty())
    return fail("pod " + key + " does not fit node " + node_name + " any more");
  const auto chosen = std::span<GpuId>(pick_).first(static_cast<size_t>(r.gpu_count));
  bool reserved = false;
  if (gpus != nullptr && gpus->size() == chosen.size()) {
    const GpuId first = cluster_->first_gpu(node);
    bool valid = true;
    for (size_t i = 0; i < chosen.size(); ++i) {
      const int g = (*gpus)[i];
      valid = valid && g >= 0 && g < cluster_->gpus_on(node) &&
              cluster_->gpu_free_units(first + static_cast<GpuId>(g)) >= r.claim_units;
      if (valid) chosen[i] = first + static_cast<GpuId>(g);
    }
    reserved = valid && policy_.reserve(cycle, node, chosen);
  }
  if (!reserved && !policy_.place_on(cycle, node, pick_))
    return fail("no GPUs of node " + node_name + " can hold pod " + key);
  cluster_->bind(node, chosen, r);
  run_->pod_left_queue(slot);
  BoundPod b;
  b.node = node_name;
  const GpuId first = cluster_->first_gpu(node);
  for (const GpuId g : chosen) b.gpus.push_back(static_cast<int>(g - first));
  b.request = r;
  bound_.emplace(key, std::move(b));
  bind_order_.emplace(next_seq_, key);
  bind_seq_.emplace(key, next_seq_++);
  return {};
}

bool ClusterDecider::release(const std::string& key) {
  refresh();
  const auto it = bound_.find(key);
  if (it == bound_.end()) return false;
  const BoundPod& b = it->second;
  const NodeId node = node_ids_.find(b.node).value();
  std::vector<GpuId> gpus;
  for (const int g : b.gpus) gpus.push_back(cluster_->first_gpu(node) + static_cast<GpuId>(g));
  cluster_->unbind(node, gpus, b.request);
  const uint32_t slot = slots_.at(key);
  run_->release(slot, gpus);
  bind_order_.erase(bind_seq_.at(key));
  bind_seq_.erase(key);
  bound_.erase(it);
  free_slot(key);
  return true;
}

const BoundPod* ClusterDecider::bound(const std::string& key) const {
  const auto it = bound_.find(key);
  return it == bound_.end() ? nullptr : &it->second;
}

double ClusterDecider::fragmented_gpus(const TargetWorkload& target) const {
  double milli = 0;
  std::vector<int> free_milli;
  const int cap = cluster_->capacity_units();
  for (NodeId n = 0; n < cluster_->node_count(); ++n) {
    free_milli.clear();
    for (GpuId g = cluster_->first_gpu(n), end = g + static_cast<GpuId>(cluster_->gpus_on(n));
         g < end; ++g)
      free_milli.push_back(cluster_->gpu_free_units(g) * 1000 / cap);
    milli += node_fragmentation(target, cluster_->cpu_free(n), cluster_->model(n), free_milli);
  }
  return milli / 1000.0;
}

void ClusterDecider::gpu_allocation(GpuAllocationSnapshot& out) const {
  if (!cluster_) return;
  const int cap = cluster_->capacity_units();
  constexpr int64_t kBytesInMiB = 1024 * 1024;
  const size_t first = out.nodes.size();
  for (NodeId n = 0; n < cluster_->node_count(); ++n) {
    NodeGpuAllocation node{cluster_->node_name(n), {}};
    const int64_t memory_mib = cluster_->gpu_memory_capacity(n);
    const std::string& type = nodes_[n].facts.product.empty()
                                  ? catalog_.models()[cluster_->model(n)].name
                                  : nodes_[n].facts.product;
    for (int i = 0; i < cluster_->gpus_on(n); ++i) {
      const GpuId g = cluster_->first_gpu(n) + static_cast<GpuId>(i);
      GpuDeviceAllocation gpu;
      gpu.index = i;
      gpu.type = type;
      gpu.memory_total_bytes = memory_mib * kBytesInMiB;
      gpu.cores_allocated = 100.0 * (cap - cluster_->gpu_free_units(g)) / cap;
      node.gpus.push_back(std::move(gpu));
    }
    out.nodes.push_back(std::move(node));
  }
  for (const auto& [key, b] : bound_) {
    const auto id = node_ids_.find(b.node);
    if (!id) continue;
    NodeGpuAllocation& node = out.nodes[first + *id];
    const int64_t card_mib = cluster_->gpu_memory_capacity(*id);
    // HAMi's unit: a whole card, or a share without gpumem, holds its part of the memory.
    const int64_t mib = b.request.gpu_memory_mib > 0
                            ? b.request.gpu_memory_mib
                            : card_mib * b.request.claim_units / std::max(cap, 1);
    const size_t slash = key.find('/');
    for (const int i : b.gpus) {
      if (i < 0 || static_cast<size_t>(i) >= node.gpus.size()) continue;
      GpuDeviceAllocation& gpu = node.gpus[static_cast<size_t>(i)];
      gpu.memory_allocated_bytes =
          std::min(gpu.memory_allocated_bytes + mib * kBytesInMiB, gpu.memory_total_bytes);
      ++gpu.shared_count;
      out.pods.push_back({key.substr(0, slash), key.substr(slash + 1), b.node, 0, gpu.uuid,
                          mib * kBytesInMiB, 100.0 * b.request.claim_units / std::max(cap, 1)});
    }
  }
}

int64_t ClusterDecider::gpu_memory_capacity(const std::string& node) const {
  const auto id = node_ids_.find(node);
  return id ? cluster_->gpu_memory_capacity(*id) : 0;
}

}  // namespace slicelab::k8s
