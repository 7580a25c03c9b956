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

}  // namespace slicelab
