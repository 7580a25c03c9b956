#include "workloads/trace_summary.h"

#include <fmt/format.h>

namespace slicelab {

void TraceSummary::add_pods(std::span<const PodSpec> list) {
  for (const PodSpec& p : list) {
    ++pods;
    if (p.gpu_count == 0) {
      ++cpu_only;
      continue;
    }
    gpu_demand_milli += int64_t{p.gpu_count} * p.gpu_milli;
    if (p.gpu_count == 1) {
      ++one_gpu;
      if (p.gpu_milli < 1000) ++fractional;
    } else {
      ++multi_gpu;
      ++pods_by_gpu_count[p.gpu_count];
    }
  }
}

void TraceSummary::add_nodes(size_t count, int gpus_per_node, const std::string& model) {
  nodes += count;
  if (gpus_per_node <= 0) return;
  gpu_nodes += count;
  const size_t n = count * static_cast<size_t>(gpus_per_node);
  gpus += n;
  gpus_by_model[model] += n;
}

std::string TraceSummary::text() const {
  std::string out;
  if (pods > 0) {
    std::vector<std::string> multi;
    for (const auto& [g, n] : pods_by_gpu_count) multi.push_back(fmt::format("{} x {}", n, g));
    out += fmt::format(
        "{} pods: {} CPU-only, {} one-GPU ({} fractional), {} multi-GPU{}; GPU demand {} GPUs\n",
        pods, cpu_only, one_gpu, fractional, multi_gpu,
        multi.empty() ? "" : fmt::format(" ({})", fmt::join(multi, ", ")), gpu_demand());
  }
  if (nodes > 0) {
    std::vector<std::string> models;
    for (const auto& [m, n] : gpus_by_model) models.push_back(fmt::format("{} {}", n, m));
    out += fmt::format("{} nodes ({} with GPUs), {} GPUs{}\n", nodes, gpu_nodes, gpus,
                       models.empty() ? "" : fmt::format(": {}", fmt::join(models, ", ")));
  }
  return out;
}

}  // namespace slicelab
