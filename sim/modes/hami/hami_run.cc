#include "sim/modes/hami/hami_run.h"

#include <algorithm>

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
  std::erase_if(candidates, [&](NodeId n) {
    // checkType: the card type the pod allows (nvidia.com/use-gputype).
    if ((req.model_mask >> cluster_.model(n) & 1U) == 0) return true;
    const HamiDevice dev = device(n);
    if (!hami_node_may_fit(summary(n), dev, a, req.gpu_count)) return true;
    int fitting = 0;
    for (GpuId g = cluster_.first_gpu(n), end = g + static_cast<GpuId>(cluster_.gpus_on(n));
         g < end && fitting < req.gpu_count; ++g)
      fitting += fits(g, dev, a) ? 1 : 0;
    return fitting < req.gpu_count;
  });
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
  held_[pod] = 0;
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

const DevicePicker* HamiRun::named_picker(std::string_view name) const {
  for (const HamiDevicePicker& p : pickers_)
    if (p.name() == name) return &p;
  return nullptr;
}

}  // namespace slicelab
