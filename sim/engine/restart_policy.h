// Kubernetes' restart policy for pods that fail (out of memory, a client fault, a neighbour's
// fault): whether and when a failed pod restarts (in place, or re-queued), with the kubelet's
// back-off.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/engine/arrival_order.h"
#include "sim/engine/pod_events.h"
#include "sim/metrics/run_result.h"

namespace slicelab {

// restartPolicy: Never (a failed pod stays failed), OnFailure, Always (the same as OnFailure for
// a failed pod; a completed pod is not started again).
enum class RestartKind : uint8_t { kNever, kOnFailure, kAlways };
const char* to_string(RestartKind k);

// The scenario's engine.restart (docs/scenario-format.md#restarts). Defaults: the kubelet's
// crash-loop back-off (pkg/kubelet/kubelet.go: containerBackOffPeriod 10 s, MaxContainerBackOff
// 300 s).
struct RestartConfig {
  RestartKind policy = RestartKind::kNever;
  double backoff_s = 10.0;       // the first delay; > 0, so no pod restarts in zero time
  double max_backoff_s = 300.0;  // the cap; >= backoff_s
  // false: the kubelet restarts the container in place (the pod keeps its node and devices);
  // true: a failed pod is scheduled anew, as a Job controller's replacement pod would be.
  bool reschedule = false;
  bool enabled() const { return policy != RestartKind::kNever; }
};

// A failure more than this long after the pod's previous one starts its back-off afresh: the
// kubelet's HasExpiredFunc (pkg/kubelet/kubelet.go), "ran fine for 10 minutes".
inline constexpr double kRestartResetS = 600.0;
// The least back-off engine.restart accepts: the kubelet's least maxContainerRestartPeriod.
inline constexpr double kMinRestartBackoffS = 1.0;

// The delay before a pod's `streak`-th restart (1-based) since its back-off was last reset:
// backoff_s x 2^(streak-1), at most max_backoff_s.
double restart_delay_s(const RestartConfig& c, uint32_t streak);

// Whether restarting can cure a failure: one caused by its neighbours (their memory, their fault)
// or a modelled client fault can. One of the pod's own making (its peak over the limit its mode
// gives it, its MIG instance too small) cannot: the kubelet restarts a container in place, under
// the same limit, so it would crash-loop until the run ends; it stays failed at once.
bool restart_can_cure(FailureCause cause);

// Contract: with a policy other than Never, every failed pod whose failure a restart can cure
// restarts after its delay (never 0). In place (the default): it stays bound to its node and
// devices but is no tenant; failed(p, o, slot, events) schedules its restart event in its tenant
// slot, and restarted_in_place(p, o) at that time counts it (the engine re-runs the start
// checks on the same GPUs). Rescheduled (reschedule: true): the engine unbinds it;
// failed(...) schedules its re-queue, and restarted(p, o) at that time resets
// its outcome to pending (keeping nothing of the failed attempt but the restart count) and gives
// its place in the queue: its first arrival's rank, so it waits where it first arrived (queue
// delay and JCT count from its first arrival). The back-off follows client-go's
// flowcontrol.Backoff as the kubelet sets it up: each failure doubles the delay up to the cap,
// and a failure more than kRestartResetS after the pod's previous one starts again from
// backoff_s. With Never nothing is held per pod.
class RestartPolicy {
 public:
  explicit RestartPolicy(const RestartConfig& config) : config_(config) {}

  bool enabled() const { return config_.enabled(); }
  // Per pod (only when enabled): its arrival rank (none when the workload is in arrival order),
  // its failure streak and when it last failed.
  void prepare(size_t pods, const ArrivalOrder& order);
  // Whether failed pod p (outcome `o`) stays bound to restart in place; the engine asks before
  // it would unbind it.
  bool in_place(const PodOutcome& o) const {
    return enabled() && !config_.reschedule && restart_can_cure(o.failure);
  }
  // Pod p failed (outcome `o`: its cause, and its finish as the failure's time): with a policy,
  // and where a restart can cure it, its restart in tenant slot `slot` (in place) or its
  // re-queue after its back-off goes into `events`.
  void failed(uint32_t p, const PodOutcome& o, uint32_t slot, PodEvents& events);
  // When pod p, failing at `now`, goes back to the queue (a policy other than Never).
  double next_restart_s(uint32_t p, double now);
  // Pod p goes back to the queue now: its outcome `o` becomes pending with one more restart;
  // returns its queue order (the rank of its first arrival).
  uint64_t restarted(uint32_t p, PodOutcome& o);
  // Pod p's container starts again in place now: one more restart in `o` and the counts.
  void restarted_in_place(PodOutcome& o);
  // The run's restart figures for the summary; none without a policy.
  std::optional<RestartCounts> counts() const;
  // Frees the per-pod state once no pod fails any more.
  void forget_pods();

 private:
  RestartConfig config_;
  std::vector<uint32_t> rank_;          // per pod when the workload was reordered; else empty
  std::vector<uint8_t> streak_;         // per pod: failures since the back-off was reset
  std::vector<double> last_failure_s_;  // per pod: when it last failed (-1: never)
  RestartCounts counts_;
};

}  // namespace slicelab
