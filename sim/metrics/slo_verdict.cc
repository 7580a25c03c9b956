#include "sim/metrics/slo_verdict.h"

namespace slicelab {

SloVerdict slo_verdict(const PodSlo& slo, double arrival_s, const PodOutcome& o, double end_s) {
  const auto within = [](const OptionalSeconds& limit, double s) { return !limit || s <= *limit; };
  switch (o.status) {
    case PodStatus::kCompleted:
      return within(slo.max_queue_s, o.start_s - arrival_s) &&
                     within(slo.max_jct_s, o.finish_s - arrival_s)
                 ? SloVerdict::kMet
                 : SloVerdict::kMissed;
    case PodStatus::kFailed:
    case PodStatus::kUnschedulable:
      return SloVerdict::kMissed;
    case PodStatus::kPending:
    case PodStatus::kRunning: {
      // Queued so far: until it started, or until the end if it has not.
      const double queued = (o.status == PodStatus::kRunning ? o.start_s : end_s) - arrival_s;
      const bool passed =
          !within(slo.max_queue_s, queued) || !within(slo.max_jct_s, end_s - arrival_s);
      return passed ? SloVerdict::kMissed : SloVerdict::kUndecided;
    }
  }
  return SloVerdict::kUndecided;
}

}  // namespace slicelab
