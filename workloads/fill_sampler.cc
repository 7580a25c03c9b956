#include "workloads/fill_sampler.h"

#include <fmt/format.h>

#include "workloads/input_error.h"
#include "workloads/input_limits.h"
#include "workloads/rng.h"

namespace slicelab {

std::vector<PodSpec> sample_fill(std::span<const PodSpec> trace, double capacity_gpus,
                                 double target, uint64_t seed) {
  std::vector<PodSpec> out;
  bool any_gpu = false;
  for (const PodSpec& p : trace) any_gpu |= p.gpu_count > 0;
  if (trace.empty() || !any_gpu) return out;  // no GPU demand could ever reach the target
  Rng rng(derive_seed(seed, "fill"));
  const double goal = target * capacity_gpus;
  double demand = 0;
  while (demand < goal) {
    // The loader checks the expected count (sim/scenario/scenario_loader.cc); chance can still
    // carry a draw past it.
    if (out.size() == static_cast<size_t>(kMaxPods))
      throw InputError(fmt::format(
          "workload.fill: reaching {:g}x the GPU capacity takes more than {} pods (the limit of "
          "one workload)",
          target, kMaxPods));
    PodSpec pod = trace[rng.below(trace.size())];
    demand += pod.gpu_count * static_cast<double>(pod.gpu_milli) / 1000.0;
    pod.name = fmt::format("{}#{}", pod.name, out.size());
    pod.arrival_s = static_cast<double>(out.size());
    pod.duration_s = 1.0;  // never reached: nothing departs in a fill experiment
    out.push_back(std::move(pod));
  }
  return out;
}

}  // namespace slicelab
