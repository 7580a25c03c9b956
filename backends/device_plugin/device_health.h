// The health of a node's GPUs as NVML reports it, shared by the health monitor (which writes)
// and every resource's ListAndWatch stream (which waits for a change and reads).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace slicelab::device_plugin {

class DeviceHealth {
 public:
  // Marks a GPU (by UUID, "GPU-…" or "MIG-…") unhealthy with a reason for people ("XID 79",
  // "lost"); a GPU is healthy until marked. Wakes every waiter when anything changed.
  void mark_unhealthy(const std::string& uuid, const std::string& reason);
  void mark_healthy(const std::string& uuid);
  bool healthy(const std::string& uuid) const;
  // "" when healthy.
  std::string reason(const std::string& uuid) const;
  // Bumped on every change.
  uint64_t version() const;
  // Waits until version() != seen or `timeout` passes or stop() was called; returns version().
  uint64_t wait_for_change(uint64_t seen, std::chrono::milliseconds timeout) const;
  // Wakes every waiter for good (shutdown).
  void stop();
  bool stopped() const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::map<std::string, std::string> unhealthy_;  // uuid -> reason
  uint64_t version_ = 0;
  bool stopped_ = false;
};

}  // namespace slicelab::device_plugin
