// One MPS-shared resource's control daemon and what its containers get: the daemon runs with
// pipe and log folders <mps root>/<resource>/{pipe,log}, limits every client to 1/replicas of
// each GPU's threads and memory (NVIDIA's mps-control-daemon), and containers mount them.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/device_plugin/resource_plugin.h"
#include "backends/local/mps_daemon.h"

namespace slicelab::device_plugin {

class MpsShare {
 public:
  // `gpu_uuids` (the daemon's CUDA_VISIBLE_DEVICES, in order) with `memory_mib` each.
  MpsShare(const std::string& mps_root, const std::string& resource, std::string control,
           int replicas, std::vector<std::string> gpu_uuids, std::vector<int64_t> memory_mib);

  const std::string& pipe_dir() const { return folders_.pipe_dir; }
  const std::string& log_dir() const { return folders_.log_dir; }
  // Starts the daemon and sets its limits the first time (later calls do nothing), so that
  // `cdi generate` and a plugin that is never asked for a replica start none. Throws
  // std::runtime_error when the daemon cannot start.
  void ensure_started();
  bool started() const;
  // The client's folders and the mounts that reach the daemon: the pipe and log folders at
  // the same path, and /dev/shm, which MPS clients share with their daemon.
  void add_client_edits(ContainerAllocation& a) const;

 private:
  MpsFolders folders_;
  std::string control_;
  int replicas_;
  std::vector<std::string> gpu_uuids_;
  std::vector<int64_t> memory_mib_;
  mutable std::mutex mu_;
  std::unique_ptr<MpsDaemon> daemon_;
};

}  // namespace slicelab::device_plugin
