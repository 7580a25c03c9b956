#include "workloads/service_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "workloads/input_error.h"
#include "workloads/input_limits.h"

namespace slicelab {

int ServiceTable::service_of(uint32_t pod) const {
  if (first_.empty() || pod < first_.front() || pod >= first_.back()) return kNone;
  const auto it = std::upper_bound(first_.begin(), first_.end(), pod);
  return static_cast<int>(it - first_.begin()) - 1;
}

std::vector<std::string> ServiceTable::names() const {
  std::vector<std::string> out;
  out.reserve(services_.size());
  for (const ServiceSpec& s : services_) out.push_back(s.name);
  return out;
}

void ServiceTable::expand(std::vector<ServiceSpec> list, std::vector<PodSpec>& pods) {
  services_ = std::move(list);
  first_.clear();
  if (services_.empty()) return;
  int64_t total = static_cast<int64_t>(pods.size());
  for (const ServiceSpec& s : services_) total += s.most_replicas();
  if (total > kMaxPods)
    throw InputError(fmt::format(
        "the services' replica pools would make the workload {} pods, more than the limit of {}",
        total, kMaxPods));
  for (const ServiceSpec& s : services_) {
    first_.push_back(static_cast<uint32_t>(pods.size()));
    for (int k = 0; k < s.most_replicas(); ++k) {
      PodSpec pod = s.replica;
      pod.name = fmt::format("{}-{}", s.name, k);
      pod.arrival_s = 0.0;
      pod.duration_s = std::numeric_limits<double>::infinity();
      pods.push_back(std::move(pod));
    }
  }
  first_.push_back(static_cast<uint32_t>(pods.size()));
}

}  // namespace slicelab
