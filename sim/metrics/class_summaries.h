// The run summary's per-class block (RunSummary::per_class): each workload class's pods, their
// outcomes, queueing, completion times, SLO attainment and GPU-hours, computed once at the end.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "sim/metrics/run_result.h"
#include "workloads/pod_spec.h"

namespace slicelab {

// One ClassSummary per class, by name; empty when every pod is in class "default" (a workload
// without classes keeps its summary as it was). Pods without a `class:` are in "default".
// `outcomes` is in `pods`' order; GPU time counts within [window_start_s, window_end_s].
std::vector<ClassSummary> class_summaries(std::span<const PodSpec> pods,
                                          std::span<const PodOutcome> outcomes,
                                          double window_start_s, double window_end_s);

// The class names of `pods`, in name order; empty when every pod is in "default" (the names a
// class-named target may use: a run of such a workload has no per-class block).
std::vector<std::string> workload_class_names(std::span<const PodSpec> pods);

}  // namespace slicelab
