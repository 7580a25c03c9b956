// The FGD paper's fill ("inflation") workload: pods drawn from a trace with a seed, one after
// another and never departing, until their GPU demand reaches a multiple of the capacity.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "workloads/pod_spec.h"

namespace slicelab {

// Draws pods uniformly with replacement from `trace` until the drawn GPU demand (GPU count x
// share) reaches target x capacity_gpus. Pod i arrives at i seconds; names get "#<i>" so that
// repeated draws stay distinct. CPU-only pods are drawn too, as in the paper (they take CPU).
std::vector<PodSpec> sample_fill(std::span<const PodSpec> trace, double capacity_gpus,
                                 double target, uint64_t seed);

}  // namespace slicelab
