#include "backends/device_plugin/preferred_allocation.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string_view>
#include <unordered_set>

#include "sim/cluster_spec.h"
#include "sim/cluster_state.h"
#include "sim/gpu_catalog.h"
#include "sim/placement/topology_picker.h"
#include "workloads/input_limits.h"
#include "workloads/rng.h"

namespace slicelab::device_plugin {
namespace {

// Positions (into `devices`) of the request's candidates: available, known, not already
// chosen, in the resource's order so that every tie breaks the same way.
struct Split {
  std::vector<std::string> result;  // must_include: those available and known, each once
  std::vector<size_t> candidates;
  size_t needed = 0;
};

Split split(std::span<const ResourceDevice> devices, const PreferredRequest& r) {
  Split s;
  // Hash sets: a node of 8 GPUs with 48 replicas each offers 384 IDs.
  const std::unordered_set<std::string_view> available(r.available.begin(), r.available.end());
  std::unordered_set<std::string_view> known;
  for (const ResourceDevice& d : devices) known.insert(d.id);
  std::unordered_set<std::string_view> chosen;
  const auto size = static_cast<size_t>(std::max(0, r.size));
  // A must_include ID that is not available is never handed back (the server refuses such a
  // request before it gets here).
  for (const std::string& id : r.must_include)
    if (s.result.size() < size && available.count(id) && known.count(id) &&
        chosen.insert(id).second)
      s.result.push_back(id);
  if (s.result.size() >= size) return s;
  s.needed = size - s.result.size();
  for (size_t i = 0; i < devices.size(); ++i) {
    const std::string& id = devices[i].id;
    if (available.count(id) && !chosen.count(id)) s.candidates.push_back(i);
  }
  if (s.candidates.size() < s.needed)
    throw AllocationError(fmt::format(
        "not enough available devices to satisfy allocation (want {} more, {} available)", s.needed,
        s.candidates.size()));
  return s;
}

}  // namespace

std::vector<std::string> preferred_in_order(std::span<const ResourceDevice> devices,
                                            const PreferredRequest& request) {
  Split s = split(devices, request);
  for (size_t k = 0; k < s.needed; ++k) s.result.push_back(devices[s.candidates[k]].id);
  return s.result;
}

std::vector<std::string> preferred_replicas(std::span<const ResourceDevice> devices,
                                            const PreferredRequest& request) {
  Split s = split(devices, request);
  if (s.needed == 0) return s.result;
  // NVIDIA's greedyAlloc with the distributed comparator: per GPU, replicas in use = all its
  // replicas minus those still available; take from the GPU with the fewest in use, then
  // the one this request took fewest from, then (our stable tie-break) the GPU whose next
  // candidate comes first in the resource's order. A GPU's candidates are alike, so each GPU
  // keeps a queue of them in that order.
  struct Gpu {
    std::string_view uuid;
    int total = 0, available = 0, picked = 0;
    std::vector<size_t> queue;  // candidates, in the resource's order
    size_t next = 0;
  };
  std::vector<Gpu> gpus;
  const auto slot_of = [&](std::string_view uuid) -> Gpu* {
    for (Gpu& g : gpus)
      if (g.uuid == uuid) return &g;
    return nullptr;
  };
  for (size_t c : s.candidates) {
    Gpu* g = slot_of(devices[c].cuda_uuid());
    if (g == nullptr) {
      g = &gpus.emplace_back();
      g->uuid = devices[c].cuda_uuid();
    }
    ++g->available;
    g->queue.push_back(c);
  }
  for (const ResourceDevice& d : devices)
    if (Gpu* g = slot_of(d.cuda_uuid())) ++g->total;
  for (size_t k = 0; k < s.needed; ++k) {
    Gpu* best = nullptr;
    for (Gpu& g : gpus) {
      if (g.next == g.queue.size()) continue;
      if (best == nullptr) {
        best = &g;
        continue;
      }
      const int in_use = g.total - g.available, best_in_use = best->total - best->available;
      if (in_use != best_in_use      ? in_use < best_in_use
          : g.picked != best->picked ? g.picked < best->picked
                                     : g.queue[g.next] < best->queue[best->next])
        best = &g;
    }
    --best->available;
    ++best->picked;
    s.result.push_back(devices[best->queue[best->next++]].id);
  }
  return s.result;
}

std::vector<std::string> preferred_on_topology(std::span<const ResourceDevice> devices,
                                               const PreferredRequest& request,
                                               const std::shared_ptr<const GpuTopology>& topology,
                                               int node_gpus) {
  Split s = split(devices, request);
  if (s.needed == 0) return s.result;
  int max_index = 0;
  for (const ResourceDevice& d : devices)
    max_index = std::max(max_index, static_cast<int>(d.gpu_index));
  node_gpus = std::max(node_gpus, max_index + 1);
  if (node_gpus > kMaxGpusPerNode) return preferred_in_order(devices, request);

  // A one-node cluster of this node's GPUs, everything but the candidates taken.
  const GpuCatalog catalog = GpuCatalog::builtin();
  ClusterSpec spec;
  NodeGroup node;
  node.name = "node";
  node.cpu_milli = 1;
  node.memory_mib = 1;
  node.gpus_per_node = node_gpus;
  if (topology != nullptr && topology->gpu_count() == node_gpus) node.topology = topology;
  spec.groups.push_back(node);
  constexpr int kUnits = 1000;
  ClusterState cluster(spec, catalog, kUnits);
  std::vector<int> candidate_of(static_cast<size_t>(node_gpus), -1);
  for (size_t c : s.candidates) candidate_of[devices[c].gpu_index] = static_cast<int>(c);
  PodRequest taken;
  taken.gpu_count = 1;
  taken.claim_units = kUnits;
  for (int g = 0; g < node_gpus; ++g)
    if (candidate_of[static_cast<size_t>(g)] < 0) {
      const GpuId id = cluster.first_gpu(0) + static_cast<GpuId>(g);
      cluster.bind(0, std::span<const GpuId>(&id, 1), taken);
    }
  PodRequest want;
  want.gpu_count = static_cast<int>(s.needed);
  want.claim_units = kUnits;
  Rng rng(0);  // the picker draws nothing; the cycle needs one
  const SchedulingCycle cycle{cluster, want, 0, 0.0, rng};
  std::vector<GpuId> picked(s.needed);
  if (!TopologyDevicePicker().pick(cycle, 0, picked)) return preferred_in_order(devices, request);
  for (GpuId g : picked)
    s.result.push_back(
        devices[static_cast<size_t>(candidate_of[static_cast<size_t>(g - cluster.first_gpu(0))])]
            .id);
  return s.result;
}

}  // namespace slicelab::device_plugin
