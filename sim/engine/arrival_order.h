// The order in which a run's pods arrive (by arrival time; equal times in workload order). A
// workload already in that order (the generator's, most traces) is its own order: no array.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "workloads/pod_spec.h"

namespace slicelab {

// Contract: after prepare(pods, arriving), (*this)[k] is the index of the k-th pod to arrive, for
// k below `arriving`, and k itself for the pods after them (services' replica pools, which do
// not arrive by themselves); a sorted workload keeps no per-pod state (4 bytes per pod
// otherwise).
class ArrivalOrder {
 public:
  void prepare(std::span<const PodSpec> pods, size_t arriving) {
    auto earlier = [](const PodSpec& a, const PodSpec& b) { return a.arrival_s < b.arrival_s; };
    order_.clear();
    const auto end = pods.begin() + static_cast<std::ptrdiff_t>(arriving);
    if (std::is_sorted(pods.begin(), end, earlier)) return;
    order_.resize(pods.size());
    std::iota(order_.begin(), order_.end(), 0U);
    std::stable_sort(order_.begin(), order_.begin() + static_cast<std::ptrdiff_t>(arriving),
                     [&](uint32_t a, uint32_t b) { return earlier(pods[a], pods[b]); });
  }
  uint32_t operator[](size_t k) const {
    return order_.empty() ? static_cast<uint32_t>(k) : order_[k];
  }
  // Whether the workload needed its own order array (it was not sorted by arrival).
  bool reordered() const { return !order_.empty(); }
  void clear() { std::vector<uint32_t>().swap(order_); }

 private:
  std::vector<uint32_t> order_;  // empty: the identity
};

}  // namespace slicelab
