#include "sim/engine/static_feasibility.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace slicelab {

std::optional<std::string> never_fits_reason(const ClusterSpec& cluster, const GpuCatalog& catalog,
                                             const PodRequest& req) {
  std::vector<const NodeGroup*> left;
  for (const auto& g : cluster.groups) left.push_back(&g);
  // Narrow the node groups one constraint at a time; the first constraint that leaves none
  // is the reason, with the best the cluster offers for it.
  auto narrow = [&](auto keep, auto explain) -> std::optional<std::string> {
    std::vector<const NodeGroup*> next;
    for (const NodeGroup* g : left)
      if (keep(*g)) next.push_back(g);
    if (next.empty()) return explain();
    left.swap(next);
    return std::nullopt;
  };
  if (req.gpu_count > 0) {
    if (auto r = narrow(
            [&](const NodeGroup& g) {
              return g.gpus_per_node > 0 && ((req.model_mask >> g.gpu_model) & 1U);
            },
            [&] { return std::string("no node has an allowed GPU model"); }))
      return r;
    int64_t best_mem = 0;
    for (const NodeGroup* g : left)
      best_mem = std::max(best_mem, catalog.models()[g->gpu_model].memory_mib);
    if (auto r = narrow(
            [&](const NodeGroup& g) {
              return catalog.models()[g.gpu_model].memory_mib >= req.gpu_memory_mib;
            },
            [&] {
              return fmt::format("needs {} MiB of GPU memory, the largest allowed GPU has {} MiB",
                                 req.gpu_memory_mib, best_mem);
            }))
      return r;
    int best_gpus = 0;
    for (const NodeGroup* g : left) best_gpus = std::max(best_gpus, g->gpus_per_node);
    if (auto r = narrow([&](const NodeGroup& g) { return g.gpus_per_node >= req.gpu_count; },
                        [&] {
                          return fmt::format(
                              "needs {} GPUs on one node, the most an allowed node has is {}",
                              req.gpu_count, best_gpus);
                        }))
      return r;
  }
  int64_t best_cpu = 0;
  for (const NodeGroup* g : left) best_cpu = std::max(best_cpu, g->cpu_milli);
  if (auto r = narrow([&](const NodeGroup& g) { return g.cpu_milli >= req.cpu_milli; },
                      [&] {
                        return fmt::format("needs {} CPU milli, the most a suitable node has is {}",
                                           req.cpu_milli, best_cpu);
                      }))
    return r;
  int64_t best_mem = 0;
  for (const NodeGroup* g : left) best_mem = std::max(best_mem, g->memory_mib);
  if (auto r = narrow([&](const NodeGroup& g) { return g.memory_mib >= req.memory_mib; },
                      [&] {
                        return fmt::format(
                            "needs {} MiB of memory, the most a suitable node has is {} MiB",
                            req.memory_mib, best_mem);
                      }))
    return r;
  return std::nullopt;
}

}  // namespace slicelab
