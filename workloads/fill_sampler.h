// The FGD paper's fill ("inflation") workload: the trace's pods in a seeded random order, tuned
// up or down to a multiple of the GPU capacity, arriving one after another and never departing.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "workloads/pod_spec.h"

namespace slicelab {

// The workload of the paper's simulator (kubernetes-scheduler-simulator, pkg/simulator/core.go
// Simulate, simulator.go SortClusterPods and TunePodsByNodeTotalResource), with our own seeded
// Rng: every pod of `trace` once, shuffled (ordered by name first, so the trace's order does not
// matter). Their GPU demand (GPU count x share) is then tuned to goal = target x capacity_gpus:
//  - below the goal (tuneUpPods): pods drawn uniformly with replacement from the trace are
//    appended after the shuffled originals, until the first draw whose per-GPU share would take
//    the demand past the goal, which is dropped. The check uses the draw's share of one GPU
//    while the demand grows by all its GPUs, as in the paper, so a multi-GPU last draw may
//    overshoot the goal by less than its size.
//  - above the goal (tuneDownPods): uniformly random pods are removed until demand <= goal.
// Pod i arrives at i seconds; names get "#<i>" so that repeated draws stay distinct. CPU-only
// pods are kept and drawn too, as in the paper (they take CPU). Empty when the trace has no
// GPU pods (no GPU demand could ever reach the goal).
std::vector<PodSpec> sample_fill(std::span<const PodSpec> trace, double capacity_gpus,
                                 double target, uint64_t seed);

}  // namespace slicelab
