// The MPS control daemon for one local run: started with its own pipe and log folders (so it
// never meets another user's daemon), stopped with "quit" through its pipe, folders removed,
// on every way out (normal end, error, timeout: the destructor does it).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/local/child_process.h"

namespace slicelab {

// Folders given by the caller instead of made under a temporary root: the device plugin's
// <mps root>/<resource>/pipe and .../log, which containers mount by path.
struct MpsFolders {
  std::string pipe_dir, log_dir;
};

class MpsDaemon {
 public:
  // `control` is the nvidia-cuda-mps-control program: `control_override` if not empty, else
  // $SLICELAB_MPS_CONTROL, else the first one on PATH. `visible_devices` limits the daemon to
  // the GPUs given (empty: all). Throws with a clear message when it cannot start.
  MpsDaemon(const std::string& control_override, const std::string& visible_devices,
            const std::string& temp_root = "/tmp");
  // The same with fixed folders: created when missing, and left in place by stop() (only the
  // daemon is quit), since other processes name them.
  MpsDaemon(const std::string& control_override, const std::string& visible_devices,
            const MpsFolders& folders);
  // A daemon that someone else started with these folders (and will stop): nothing is started,
  // and stop() neither quits it nor removes the folders. Throws when `folders.pipe_dir` is not
  // a folder.
  static std::unique_ptr<MpsDaemon> attach(const std::string& control_override,
                                           const MpsFolders& folders);
  ~MpsDaemon();
  MpsDaemon(const MpsDaemon&) = delete;
  MpsDaemon& operator=(const MpsDaemon&) = delete;

  const std::string& pipe_dir() const { return pipe_dir_; }
  const std::string& log_dir() const { return log_dir_; }
  const std::string& control() const { return control_; }
  // Sends one command line to the daemon through the control program (e.g.
  // "set_default_active_thread_percentage 50"); returns its output. Throws if it fails.
  std::string command(const std::string& line);
  // The device plugin's replica model, set through the control pipe: every client gets
  // 100/replicas % of the threads and, on each daemon-visible device i (numbered from 0),
  // 1/replicas of `device_memory_mib[i]` as its pinned memory limit. Returns the command lines
  // sent.
  std::vector<std::string> set_replica_limits(int replicas,
                                              std::span<const int64_t> device_memory_mib);
  // Quits the daemon and removes its folders; idempotent.
  void stop();

 private:
  MpsDaemon(std::string control, const MpsFolders& folders);  // attach()'s
  EnvMap env() const;
  void start(const std::string& visible_devices);

  std::string control_;
  std::string root_, pipe_dir_, log_dir_;
  bool running_ = false;
};

// The control program that would be used (see the constructor); empty when none is found.
std::string find_mps_control(const std::string& control_override);

}  // namespace slicelab
