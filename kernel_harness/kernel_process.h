// Runs slicelab-kernel (or anything speaking its JSON) as a child process for the harness:
// start several at once, wait, and read each one's JSON result from its log.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "backends/local/child_process.h"
#include "backends/local/isolation.h"
#include "backends/local/mps_daemon.h"

namespace slicelab {

// Paths the harness needs; each injectable so that tests run it on the fakes.
struct HarnessTools {
  std::string kernel_binary;       // slicelab-kernel
  std::string interposer_library;  // libslicelab-interposer.so
  std::string mps_control;         // empty: $SLICELAB_MPS_CONTROL or PATH
  std::string work_dir;            // client logs
  // A running MPS daemon's folder (<mps_dir>/pipe, <mps_dir>/log) that the caller started and
  // will stop; empty: the harness starts a private daemon for each measurement and stops it.
  std::string mps_dir;
};

struct KernelResult {
  ExitStatus status;
  nlohmann::json json;         // the last JSON line it printed (null if none)
  double per_unit_ns() const;  // 0 when it failed
  bool ok() const { return status.success() && json.is_object() && !json.contains("error"); }
  std::string error() const;  // for messages: its JSON error, or its exit status
};

class KernelProcess {
 public:
  // `args` follow the kernel name ("--duration", "2", ...); `env` is laid over this process's.
  KernelProcess(const HarnessTools& tools, const std::string& kernel,
                const std::vector<std::string>& args, const EnvMap& env, const std::string& tag);
  KernelResult wait();  // at most `limit_s` more; a client still running then is killed
  double limit_s = 600;

 private:
  std::string log_;
  std::unique_ptr<ChildProcess> process_;
};

// The environment of one harness client: `device` (an index or a MIG UUID) under `mechanism`
// with a share of the GPU (0..1; 1 = uncapped) and a memory cap (0 = none). `mps` is needed for
// Mechanism::kMps; `region` is the interposer's accounting file (empty: private).
EnvMap client_environment(const HarnessTools& tools, Mechanism mechanism, const std::string& device,
                          double share, int64_t memory_mib, const MpsDaemon* mps,
                          const std::string& region = {});

// The MPS daemon for clients on `device`: the caller's (tools.mps_dir) or a private one started
// now and stopped when the result is destroyed. Throws when there is none to use.
std::unique_ptr<MpsDaemon> open_mps(const HarnessTools& tools, const std::string& device);

// Runs one kernel alone and returns its result.
KernelResult run_kernel(const HarnessTools& tools, const std::string& kernel,
                        const std::vector<std::string>& args, const EnvMap& env,
                        const std::string& tag);

// Order statistics of repeated measurements (nearest rank, as the simulator's metrics).
struct Spread {
  size_t n = 0;
  double median = 0, min = 0, max = 0, p25 = 0, p75 = 0;
};
Spread spread_of(std::vector<double> values);
nlohmann::ordered_json to_json(const Spread& s);

}  // namespace slicelab
