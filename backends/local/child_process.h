// One workload process of the local backend: started in its own process group with a chosen
// environment and its output in a log file, polled without blocking, and stopped as a group
// (SIGTERM, then SIGKILL after a grace period). The destructor never leaves a group running.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace slicelab {

using EnvMap = std::map<std::string, std::string>;

// This process's environment as a map (the base that pod settings are laid over).
EnvMap current_environment();

struct ExitStatus {
  int exit_code = -1;  // -1 when a signal ended it
  int signal = 0;      // the signal that ended it, or 0
  bool success() const { return exit_code == 0; }
  std::string describe() const;  // "exit code 3", "killed by signal 9 (Killed)"
};

class ChildProcess {
 public:
  // argv[0] is run as given (a path; no PATH search). stdout and stderr go to `log_path`
  // (appended; created if missing), or are discarded when it is empty. Throws on fork failure.
  ChildProcess(const std::vector<std::string>& argv, const EnvMap& env,
               const std::string& log_path);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;

  pid_t pid() const { return pid_; }
  // The exit status once the process has ended, without blocking.
  std::optional<ExitStatus> poll();
  // Blocks until the process ends or `timeout` passes; nullopt on timeout.
  std::optional<ExitStatus> wait_for(std::chrono::milliseconds timeout);
  // SIGTERM to the whole group; SIGKILL to the group if the leader has not ended after
  // `grace`. Returns the leader's status. Children that ignore SIGTERM die with the group.
  ExitStatus terminate(std::chrono::milliseconds grace);
  // After the leader has ended: leave whatever it started in its group alone (a daemon that
  // forked off), instead of killing the group in the destructor.
  void release_group() { group_released_ = true; }

 private:
  pid_t pid_ = -1;
  std::optional<ExitStatus> status_;
  bool group_released_ = false;
};

// A driver tool to run: `override_path` if not empty, else $`env_var` if set, else the first
// executable `name` on PATH; "" when there is none.
std::string find_tool(const std::string& override_path, const char* env_var, const char* name);

struct CapturedRun {
  ExitStatus status;
  std::string output;      // stdout and stderr together
  bool timed_out = false;  // it ran past the timeout and was terminated
};

// Runs `argv` to completion (a short-lived helper program: nvidia-smi, the MPS control) and
// returns what it printed. Past `timeout` it is terminated and its status says so.
CapturedRun run_captured(const std::vector<std::string>& argv, const EnvMap& env,
                         std::chrono::milliseconds timeout);

}  // namespace slicelab
