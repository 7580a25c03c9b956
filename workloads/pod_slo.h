// A pod's service-level objectives (queueing and completion limits), held by the pod through
// one shared pointer: most pods have none, and a generator shape's pods share one.
#pragma once

#include "workloads/optional_seconds.h"
#include "workloads/shared_value.h"

namespace slicelab {

struct PodSlo {
  OptionalSeconds max_queue_s;
  OptionalSeconds max_jct_s;

  bool any() const { return max_queue_s.has_value() || max_jct_s.has_value(); }
  friend bool operator==(const PodSlo&, const PodSlo&) = default;
};

// Null when the pod has no SLO, so that an absent one costs nothing but the pointer.
inline SharedValue<PodSlo> share_slo(const PodSlo& slo) {
  return slo.any() ? SharedValue<PodSlo>(slo) : SharedValue<PodSlo>();
}

}  // namespace slicelab
