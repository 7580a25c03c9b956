// The requests of a run's pods by pod index, as the sharing runs and the queue read them: one
// record per pod, or one per distinct request and an index per pod (the engine's table).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/cluster_state.h"

namespace slicelab {

class PodRequestView {
 public:
  PodRequestView() = default;
  // One request per pod, indexed by pod.
  PodRequestView(std::span<const PodRequest> per_pod)  // NOLINT(google-explicit-constructor)
      : distinct_(per_pod) {}
  PodRequestView(const std::vector<PodRequest>& per_pod)  // NOLINT(google-explicit-constructor)
      : distinct_(per_pod) {}
  // Pod p asks for distinct[index[p]].
  PodRequestView(std::span<const PodRequest> distinct, std::span<const uint32_t> index)
      : distinct_(distinct), index_(index) {}

  const PodRequest& operator[](size_t pod) const {
    return index_.empty() ? distinct_[pod] : distinct_[index_[pod]];
  }
  size_t size() const { return index_.empty() ? distinct_.size() : index_.size(); }

 private:
  std::span<const PodRequest> distinct_;
  std::span<const uint32_t> index_;
};

}  // namespace slicelab
