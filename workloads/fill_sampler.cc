#include "workloads/fill_sampler.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "workloads/input_error.h"
#include "workloads/input_limits.h"
#include "workloads/rng.h"

namespace slicelab {

namespace {

int64_t demand_milli(const PodSpec& p) {
  return int64_t{p.gpu_count} * p.gpu_milli;
}

}  // namespace

std::vector<PodSpec> sample_fill(std::span<const PodSpec> trace, double capacity_gpus,
                                 double target, uint64_t seed) {
  std::vector<PodSpec> out;
  bool any_gpu = false;
  for (const PodSpec& p : trace) any_gpu |= p.gpu_count > 0;
  if (trace.empty() || !any_gpu) return out;
  Rng rng(derive_seed(seed, "fill"));
  const double goal = target * capacity_gpus * 1000.0;  // milli-GPUs, as the paper counts

  // SortClusterPods with shufflePod: by name, then a Fisher-Yates shuffle (rand.Shuffle's order).
  // Draws below index this name order too, so that the trace's own order never matters.
  std::vector<size_t> by_name(trace.size());
  std::iota(by_name.begin(), by_name.end(), size_t{0});
  std::stable_sort(by_name.begin(), by_name.end(),
                   [&](size_t a, size_t b) { return trace[a].name < trace[b].name; });
  std::vector<size_t> order = by_name;
  for (size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
  int64_t demand = 0;
  for (const PodSpec& p : trace) demand += demand_milli(p);

  if (static_cast<double>(demand) > goal) {
    // tuneDownPods: remove a uniformly random pod while the demand exceeds the goal. Removing
    // in the order of a random permutation of positions is the same draw, in linear time.
    std::vector<size_t> victims(order.size());
    std::iota(victims.begin(), victims.end(), size_t{0});
    std::vector<bool> removed(order.size(), false);
    for (size_t i = 0; static_cast<double>(demand) > goal; ++i) {
      std::swap(victims[i], victims[i + rng.below(victims.size() - i)]);
      removed[victims[i]] = true;
      demand -= demand_milli(trace[order[victims[i]]]);
    }
    size_t kept = 0;
    for (size_t i = 0; i < order.size(); ++i)
      if (!removed[i]) order[kept++] = order[i];
    order.resize(kept);
  } else if (static_cast<double>(demand) < goal) {
    // tuneUpPods: append draws from the trace until one would take the demand past the goal.
    for (;;) {
      const size_t k = by_name[rng.below(by_name.size())];
      // The paper checks the draw's share of one GPU (PodResource.MilliGpu), not its total.
      const int64_t one_gpu = trace[k].gpu_count > 0 ? trace[k].gpu_milli : 0;
      if (static_cast<double>(demand + one_gpu) > goal) break;
      // The loader checks the expected count (sim/scenario/scenario_loader.cc); chance can
      // still carry the draws past it.
      if (order.size() == static_cast<size_t>(kMaxPods))
        throw InputError(fmt::format(
            "workload.fill: reaching {:g}x the GPU capacity takes more than {} pods (the limit "
            "of one workload)",
            target, kMaxPods));
      demand += demand_milli(trace[k]);
      order.push_back(k);
    }
  }

  out.reserve(order.size());
  for (const size_t k : order) {
    PodSpec pod = trace[k];
    pod.name = fmt::format("{}#{}", pod.name, out.size());
    pod.arrival_s = static_cast<double>(out.size());
    pod.duration_s = 1.0;  // never reached: nothing departs in a fill experiment
    out.push_back(std::move(pod));
  }
  return out;
}

}  // namespace slicelab
