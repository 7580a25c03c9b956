#include "sim/modes/hami/hami_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "sim/prefetch.h"

namespace slicelab {

HamiRun::HamiRun(const RunSetup& setup, const HamiSettings& settings, int total_cores)
    : cluster_(setup.cluster),
      pods_(setup.pods),
      settings_(settings),
      cores_(total_cores),
      admitted_(setup.cluster.node_count()),
      used_(setup.cluster.gpu_count(), 0),
      in_use_(setup.cluster.gpu_count(), 0),
      held_(setup.pods.size(), 0),
      summaries_(setup.cluster.node_count()) {
  for (NodeId n = 0; n < cluster_.node_count(); ++n)
    // register.go: registeredmem = int32(float64(registeredmem) * deviceMemoryScaling).
    admitted_[n] = static_cast<int64_t>(static_cast<double>(cluster_.gpu_memory_capacity(n)) *
                                        settings_.device_memory_scaling);
  for (const PodSpec& p : pods_) any_percent_ = any_percent_ || p.gpu_memory_percent > 0;
  order_.reserve(static_cast<size_t>(std::max(cluster_.max_gpus_per_node(), 1)));
}

HamiUsage HamiRun::usage(GpuId g) const {
  return {used_[g], cluster_.gpu_memory_used(g), cores_ - cluster_.gpu_free_units(g)};
}

HamiAsk HamiRun::ask(uint32_t pod, const PodRequest& req) const {
  const PodSpec& p = pods_[pod];
  return {p.gpu_memory_mib, p.gpu_memory_percent, req.claim_units};
}

int64_t HamiRun::actual_mib(uint32_t pod, NodeId n) const {
  const PodSpec& p = pods_[pod];
  if (p.gpu_memory_used_mib > 0) return p.gpu_memory_used_mib;
  return hami_memory_request({p.gpu_memory_mib, p.gpu_memory_percent, 0}, device(n));
}

void HamiRun::filter(const SchedulingCycle& cycle, std::vector<NodeId>& candidates) const {
  const PodRequest& req = cycle.req;
  if (req.gpu_count == 0) return;
  const HamiAsk a = ask(cycle.pod, req);
  std::erase_if(candidates, [&](NodeId n) { return !passes(req, a, n); });
}

Rejection HamiRun::why_rejected(const SchedulingCycle& cycle, NodeId node) const {
  const PodRequest& req = cycle.req;
  if ((req.model_mask >> cluster_.model(node) & 1U) == 0)
    return {"GPU type not allowed for the pod (checkType)", {}};
  const HamiAsk a = ask(cycle.pod, req);
  const HamiDevice dev = device(node);
  // Fit's reasons, as HAMi names them, per GPU that does not take the request.
  std::map<std::string_view, int> misfits;
  int fitting = 0;
  for (GpuId g = cluster_.first_gpu(node); g < cluster_.first_gpu(node + 1); ++g) {
    switch (hami_gpu_fit(dev, usage(g), a)) {
      case HamiMisfit::kFits:
        ++fitting;
        break;
      case HamiMisfit::kSlotsExhausted:
        ++misfits["CardTimeSlicingExhausted"];
        break;
      case HamiMisfit::kMemory:
        ++misfits["CardInsufficientMemory"];
        break;
      case HamiMisfit::kCores:
        ++misfits["CardInsufficientCore"];
        break;
      case HamiMisfit::kExclusive:
        ++misfits["ExclusiveDeviceAllocateConflict"];
        break;
      case HamiMisfit::kCoresExhausted:
        ++misfits["CardComputeUnitsExhausted"];
        break;
    }
  }
  std::vector<std::string> names, counts;
  for (const auto& [name, count] : misfits) {
    names.emplace_back(name);
    counts.push_back(fmt::format("{} GPU{} {}", count, count == 1 ? "" : "s", name));
  }
  return {fmt::format("too few GPUs fit: {}", fmt::join(names, ", ")),
          fmt::format("{} of {} needed fit; {}", fitting, req.gpu_count, fmt::join(counts, ", "))};
}

bool HamiRun::passes(const PodRequest& req, const HamiAsk& a, NodeId n) const {
  if (req.gpu_count == 0) return true;
  // checkType: the card type the pod allows (nvidia.com/use-gputype).
  if ((req.model_mask >> cluster_.model(n) & 1U) == 0) return false;
  const HamiDevice dev = device(n);
  if (!hami_node_may_fit(summary(n), dev, a, req.gpu_count)) return false;
  int fitting = 0;
  for (GpuId g = cluster_.first_gpu(n), end = g + static_cast<GpuId>(cluster_.gpus_on(n));
       g < end && fitting < req.gpu_count; ++g)
    fitting += fits(g, dev, a) ? 1 : 0;
  return fitting >= req.gpu_count;
}

HamiLeaf HamiRun::index_leaf(NodeId n) const {
  const HamiNodeSummary& s = summary(n);
  HamiLeaf leaf;
  leaf.key = hami_score_key(node_score(n));
  leaf.cpu_free = cluster_.cpu_free(n);
  leaf.memory_free = cluster_.memory_free(n);
  leaf.max_free_units = cluster_.max_free_units(n);
  leaf.idle_gpus = cluster_.idle_gpus(n);
  leaf.open = s.open;
  leaf.idle = s.idle;
  leaf.max_free_mem = s.max_free_mem;
  leaf.max_free_cores = s.max_free_cores;
  leaf.models = uint64_t{1} << cluster_.model(n);
  return leaf;
}

void HamiRun::slots_changed(NodeId n) {
  if (!index_built_) return;
  // Far behind (the index unused for a while): rebuild at the next use rather than grow.
  if (index_dirty_.size() >= cluster_.node_count()) {
    index_built_ = false;
    index_dirty_.clear();
    return;
  }
  index_dirty_.push_back(n);
}

bool HamiRun::idle(NodeId n) const {
  const HamiNodeSummary& s = summary(n);
  return s.used == 0 && s.used_cores == 0 && s.used_mem == 0 &&
         cluster_.cpu_free(n) == cluster_.cpu_capacity(n) &&
         cluster_.memory_free(n) == cluster_.memory_capacity(n) &&
         cluster_.idle_gpus(n) == cluster_.gpus_on(n);
}

void HamiRun::index_node(NodeId n) const {
  const int c = index_class_[n];
  if (c >= 0 && idle(n)) {
    index_.set_idle(n, c);
  } else {
    index_.set(n, index_leaf(n));
  }
}

void HamiRun::sync_index() const {
  const auto changed = cluster_.changed_since(index_seen_);
  if (index_built_ && changed.has_value()) {
    for (const NodeId n : *changed) index_node(n);
    for (const NodeId n : index_dirty_) index_node(n);
  } else {
    index_.resize(cluster_.node_count());
    // Classes: the first kMaxClasses node profiles; nodes of any other stay in the tree.
    struct Profile {
      int64_t cpu, memory, gpu_memory;
      int gpus;
      uint16_t model;
      bool operator==(const Profile&) const = default;
    };
    std::vector<Profile> profiles;
    index_class_.assign(cluster_.node_count(), -1);
    for (NodeId n = 0; n < cluster_.node_count(); ++n) {
      const Profile p{cluster_.cpu_capacity(n), cluster_.memory_capacity(n),
                      cluster_.gpu_memory_capacity(n), cluster_.gpus_on(n),
                      static_cast<uint16_t>(cluster_.model(n))};
      const auto at = std::find(profiles.begin(), profiles.end(), p);
      if (at != profiles.end()) {
        index_class_[n] = static_cast<int>(at - profiles.begin());
      } else if (profiles.size() < HamiNodeIndex::kMaxClasses) {
        index_class_[n] = static_cast<int>(profiles.size());
        profiles.push_back(p);
      }
      index_node(n);
    }
    index_built_ = true;
  }
  index_dirty_.clear();
  index_seen_ = cluster_.changes();
}

void HamiRun::top_nodes(const SchedulingCycle& cycle, HamiPolicy policy, const PolicyNeed& need,
                        const std::function<bool(NodeId)>& policy_passes, std::vector<NodeId>& ties,
                        std::vector<TiedSet>& sets) const {
  sync_index();
  const PodRequest& req = cycle.req;
  const HamiAsk a = ask(cycle.pod, req);
  HamiNeed n;
  n.cpu = need.cpu;
  n.memory = need.memory;
  n.max_free_units = need.gpu_units;
  n.idle_gpus = need.idle_gpus;
  if (req.gpu_count > 0) {
    // hami_node_may_fit's clauses, on the most any node of a range has.
    n.gpu = true;
    n.model_mask = req.model_mask;
    n.open = req.gpu_count;
    // A percentage's MiB differ by node (Totalmem): no memory condition then.
    if (a.mem_mib > 0) n.max_free_mem = a.mem_mib;
    const int cores = std::min(a.cores, 100);
    n.max_free_cores = cores_ != 0 && cores == 0 ? 1 : cores;
    if (cores_ == 100 && cores == 100) n.idle = req.gpu_count;
  }
  const auto exact = [&](NodeId node) { return passes(req, a, node) && policy_passes(node); };
  // Idle nodes score 0 (key 0, reach 0 under either policy): a class whose lowest member passes
  // ties at 0 whole, and seeds the tree search (spread then opens only ranges holding a 0).
  int64_t top = std::numeric_limits<int64_t>::min();
  sets.clear();
  for (int c = 0; c < HamiNodeIndex::kMaxClasses; ++c) {
    if (index_.idle_count(c) == 0) continue;
    const NodeId rep = index_.idle_member(c);
    if (!exact(rep)) continue;
    top = 0;
    sets.push_back({index_.idle_bits(c), index_.idle_count(c), rep});
  }
  const int64_t idle_top = top;
  index_.best(n, policy == HamiPolicy::kBinpack, exact, top, ties);
  if (top > idle_top) sets.clear();
}

const HamiNodeSummary& HamiRun::summary(NodeId n) const {
  CachedSummary& c = summaries_[n];
  if (c.valid && c.version == cluster_.version(n)) return c.summary;
  const HamiDevice dev = device(n);
  c.summary = {};
  for (GpuId g = cluster_.first_gpu(n), end = g + static_cast<GpuId>(cluster_.gpus_on(n)); g < end;
       ++g)
    c.summary.add(dev, usage(g));
  c.version = cluster_.version(n);
  c.valid = true;
  return c.summary;
}

float HamiRun::node_score(NodeId n) const {
  const HamiNodeSummary& s = summary(n);
  const int gpus = cluster_.gpus_on(n);
  const HamiDevice dev = device(n);
  return hami_node_score(s.used, int64_t{dev.count} * gpus, s.used_cores,
                         int64_t{dev.total_core} * gpus, s.used_mem, dev.total_mem * gpus);
}

bool HamiRun::pick(const SchedulingCycle& cycle, NodeId node, HamiPolicy policy,
                   std::span<GpuId> out) const {
  const PodRequest& req = cycle.req;
  const HamiAsk a = ask(cycle.pod, req);
  const HamiDevice dev = device(node);
  order_.clear();
  for (GpuId g = cluster_.first_gpu(node), end = g + static_cast<GpuId>(cluster_.gpus_on(node));
       g < end; ++g)
    order_.push_back({hami_gpu_score(dev, usage(g), a), g});
  const bool binpack = policy == HamiPolicy::kBinpack;
  std::sort(order_.begin(), order_.end(), [&](const Ranked& x, const Ranked& y) {
    if (x.score != y.score) return binpack ? x.score > y.score : x.score < y.score;
    return x.gpu > y.gpu;
  });
  size_t taken = 0;
  for (const Ranked& r : order_) {
    if (taken == static_cast<size_t>(req.gpu_count)) break;
    if (fits(r.gpu, dev, a)) out[taken++] = r.gpu;
  }
  if (taken < static_cast<size_t>(req.gpu_count)) return false;
  // Placement order matters to no one after this; lowest index first, as other pickers write.
  std::sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(taken));
  return true;
}

bool HamiRun::reserve(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> gpus) {
  PodRequest& req = cycle.req;
  if (req.gpu_count == 0) return true;
  const HamiDevice dev = device(node);
  const HamiAsk a = ask(cycle.pod, req);
  const bool all_fit =
      std::all_of(gpus.begin(), gpus.end(), [&](GpuId g) { return fits(g, dev, a); });
  if (!all_fit && !pick(cycle, node, settings_.gpu_policy, gpus)) return false;
  req.gpu_memory_mib = hami_memory_request(a, dev);
  const int64_t actual = actual_mib(cycle.pod, node);
  for (const GpuId g : gpus) {
    ++used_[g];
    in_use_[g] += actual;
  }
  summaries_[node].valid = false;
  slots_changed(node);
  held_[cycle.pod] = 1;
  return true;
}

void HamiRun::unreserve(const SchedulingCycle& cycle, NodeId /*node*/,
                        std::span<const GpuId> gpus) {
  release(cycle.pod, gpus);
}

void HamiRun::release(uint32_t pod, std::span<const GpuId> gpus) {
  if (!held_[pod] || gpus.empty()) return;
  const NodeId n = cluster_.node_of(gpus[0]);
  const int64_t actual = actual_mib(pod, n);
  for (const GpuId g : gpus) {
    --used_[g];
    in_use_[g] -= actual;
  }
  summaries_[n].valid = false;
  slots_changed(n);
  held_[pod] = 0;
}

void HamiRun::prefetch_release(uint32_t pod, NodeId n, std::span<const GpuId> gpus) const {
  prefetch_for_write(&held_[pod]);
  prefetch_for_read(&pods_[pod].gpu_memory_mib);
  prefetch_for_write(&used_[gpus.front()]);
  prefetch_for_write(&in_use_[gpus.front()]);
  prefetch_for_write(&summaries_[n]);
}

std::optional<SharingRun::MemoryInUse> HamiRun::overcommitted_memory(GpuId g, uint32_t pod) const {
  const NodeId n = cluster_.node_of(g);
  return MemoryInUse{in_use_[g], actual_mib(pod, n), admitted_[n]};
}

const Scorer* HamiRun::named_scorer(std::string_view name) const {
  for (const HamiNodeScorer& s : scorers_)
    if (s.name() == name) return &s;
  return nullptr;
}

const ModeIndex* HamiRun::named_index(std::string_view scorer) const {
  for (size_t i = 0; i < std::size(scorers_); ++i)
    if (scorers_[i].name() == scorer) return &tops_[i];
  return nullptr;
}

const DevicePicker* HamiRun::named_picker(std::string_view name) const {
  for (const HamiDevicePicker& p : pickers_)
    if (p.name() == name) return &p;
  return nullptr;
}

}  // namespace slicelab
