// A run's pod requests as one record per distinct request and a 4-byte index per pod: a
// generated million-pod workload has a handful of shapes, and 48 bytes per pod were 48 MB.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/pod_request_view.h"

namespace slicelab {

class PodRequestTable {
 public:
  // make(p) is pod p's request. Equal requests share a record when a small cache of recent
  // distinct requests finds them, so a trace of all-different requests costs 4 bytes per pod
  // more than a plain array and nothing else (no map over all pods).
  template <typename Make>
  void build(size_t pods, Make make) {
    index_.resize(pods);
    distinct_.clear();
    std::array<uint32_t, kCacheSize> cache;
    cache.fill(UINT32_MAX);
    for (size_t p = 0; p < pods; ++p) {
      const PodRequest r = make(p);
      uint32_t& slot = cache[hash(r) % kCacheSize];
      if (slot == UINT32_MAX || distinct_[slot] != r) {
        slot = static_cast<uint32_t>(distinct_.size());
        distinct_.push_back(r);
      }
      index_[p] = slot;
    }
    distinct_.shrink_to_fit();
  }
  const PodRequest& operator[](size_t pod) const { return distinct_[index_[pod]]; }
  size_t distinct() const { return distinct_.size(); }
  // The pod's record: pods with equal indexes have equal requests (not always conversely: the
  // cache may miss), so per-request work keyed by it is done at most once per record.
  uint32_t record_of(size_t pod) const { return index_[pod]; }
  PodRequestView view() const { return PodRequestView(distinct_, index_); }

 private:
  static constexpr size_t kCacheSize = 4096;
  static size_t hash(const PodRequest& r) {
    size_t h = 0;
    auto mix = [&h](uint64_t v) { h = (h ^ std::hash<uint64_t>{}(v)) * 0x9e3779b97f4a7c15ULL; };
    mix(static_cast<uint64_t>(r.cpu_milli));
    mix(static_cast<uint64_t>(r.memory_mib));
    mix(static_cast<uint64_t>(r.gpu_memory_mib));
    mix(r.model_mask);
    mix(static_cast<uint64_t>(r.gpu_count) << 32 | static_cast<uint32_t>(r.gpu_milli));
    mix(static_cast<uint64_t>(r.claim_units) << 32 | r.shape_tag);
    return h >> 20;
  }

  std::vector<PodRequest> distinct_;
  std::vector<uint32_t> index_;  // per pod, into distinct_
};

}  // namespace slicelab
