#include "sim/metrics/run_result.h"

namespace slicelab {

const char* to_string(PodStatus s) {
  switch (s) {
    case PodStatus::kCompleted:
      return "completed";
    case PodStatus::kFailed:
      return "failed";
    case PodStatus::kUnschedulable:
      return "unschedulable";
    case PodStatus::kPending:
      return "pending";
    case PodStatus::kRunning:
      return "running";
  }
  return "?";
}

void RunSummary::count(PodStatus status) {
  switch (status) {
    case PodStatus::kCompleted:
      ++completed;
      return;
    case PodStatus::kFailed:
      ++failed;
      return;
    case PodStatus::kUnschedulable:
      ++unschedulable;
      return;
    case PodStatus::kPending:
      ++pending_at_end;
      return;
    case PodStatus::kRunning:
      ++running_at_end;
      return;
  }
}

}  // namespace slicelab
