// Whether one pod met its SLO, missed it, or cannot be judged yet when the run's window ends:
// the rule behind slo.met / slo.undecided / slo.attainment (docs/results-format.md).
#pragma once

#include "sim/metrics/run_result.h"
#include "workloads/pod_slo.h"

namespace slicelab {

enum class SloVerdict : uint8_t { kMet, kMissed, kUndecided };

// Contract: `arrival_s` is the pod's arrival, `end_s` the end of the run's window (>= arrival).
// A completed pod is judged on its queueing delay and JCT (each <= its limit). A pod that failed
// or was never placed (unschedulable) missed. A pod still pending or running at `end_s` missed
// when a limit has already passed (queueing: still queued after max_queue_s, or started after
// it; JCT: not finished max_jct_s after arrival); otherwise it is undecided: the run ended
// before its limit did, so nothing the policy did can be held against it yet. Limits are
// inclusive (a pod still pending exactly at its limit could still start in time).
SloVerdict slo_verdict(const PodSlo& slo, double arrival_s, const PodOutcome& outcome,
                       double end_s);

}  // namespace slicelab
