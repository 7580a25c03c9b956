#include "backends/device_plugin/device_health.h"

namespace slicelab::device_plugin {

void DeviceHealth::mark_unhealthy(const std::string& uuid, const std::string& reason) {
  {
    const std::lock_guard lock(mu_);
    auto [it, inserted] = unhealthy_.try_emplace(uuid, reason);
    if (!inserted && it->second == reason) return;
    it->second = reason;
    ++version_;
  }
  cv_.notify_all();
}

void DeviceHealth::mark_healthy(const std::string& uuid) {
  {
    const std::lock_guard lock(mu_);
    if (unhealthy_.erase(uuid) == 0) return;
    ++version_;
  }
  cv_.notify_all();
}

bool DeviceHealth::healthy(const std::string& uuid) const {
  const std::lock_guard lock(mu_);
  return !unhealthy_.contains(uuid);
}

std::string DeviceHealth::reason(const std::string& uuid) const {
  const std::lock_guard lock(mu_);
  const auto it = unhealthy_.find(uuid);
  return it == unhealthy_.end() ? std::string() : it->second;
}

uint64_t DeviceHealth::version() const {
  const std::lock_guard lock(mu_);
  return version_;
}

uint64_t DeviceHealth::wait_for_change(uint64_t seen, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return version_ != seen || stopped_; });
  return version_;
}

void DeviceHealth::stop() {
  {
    const std::lock_guard lock(mu_);
    stopped_ = true;
  }
  cv_.notify_all();
}

bool DeviceHealth::stopped() const {
  const std::lock_guard lock(mu_);
  return stopped_;
}

}  // namespace slicelab::device_plugin
