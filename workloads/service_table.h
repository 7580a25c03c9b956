// A workload's inference services and the replica pods that stand for them: each service owns a
// pool of pods (one per replica it may ever have) that follow every other pod of the workload.
// Built once by expand_services; the engine starts and stops the pool's pods as it scales.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "workloads/pod_spec.h"
#include "workloads/service_spec.h"

namespace slicelab {

// Contract: pods [first_replica_pod(), end) are replica pools, service by service in list order,
// service s's pool being [first_pod(s), first_pod(s) + pool_size(s)) with pool_size(s) its
// largest replica count; the workload's own pods come before them.
class ServiceTable {
 public:
  static constexpr int kNone = -1;

  bool empty() const { return services_.empty(); }
  size_t size() const { return services_.size(); }
  const ServiceSpec& operator[](size_t s) const { return services_[s]; }
  std::span<const ServiceSpec> services() const { return services_; }
  std::vector<std::string> names() const;
  uint32_t first_pod(size_t s) const { return first_[s]; }
  uint32_t pool_size(size_t s) const { return first_[s + 1] - first_[s]; }
  // The first replica pod (all pods when there are no services).
  uint32_t first_replica_pod() const { return first_.empty() ? UINT32_MAX : first_.front(); }
  // The service whose pool holds `pod`, or kNone.
  int service_of(uint32_t pod) const;

  // Appends the pools of `list` to `pods` (replica k of service "chat" is pod "chat-k", arriving
  // at 0 with no duration of its own: it runs until scaled down or the run ends). Throws
  // InputError when the workload would pass kMaxPods.
  void expand(std::vector<ServiceSpec> list, std::vector<PodSpec>& pods);

 private:
  std::vector<ServiceSpec> services_;
  std::vector<uint32_t> first_;  // per service, then one past the last pool
};

}  // namespace slicelab
