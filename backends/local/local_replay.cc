#include "backends/local/local_replay.h"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <thread>

#include "backends/local/child_process.h"
#include "backends/local/local_cluster.h"
#include "backends/local/mps_daemon.h"
#include "backends/local/private_folder.h"
#include "kernels/kernel_catalog.h"
#include "sim/cluster_state.h"
#include "sim/metrics/distribution.h"
#include "sim/modes/mode_registry.h"
#include "sim/placement/placement_config.h"
#include "sim/sharing/pod_request.h"
#include "workloads/rng.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Set by SIGINT/SIGTERM while a replay runs, so that the loop unwinds and every destructor
// (processes, MPS daemon) cleans up. A signal handler can only reach a flag of static storage.
volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_interrupt(int) {
  g_interrupted = 1;
}

// Restores the previous handlers when the replay ends.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted = 0;
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~InterruptGuard() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

std::string file_safe(const std::string& name) {
  std::string s = name;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return s;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

struct Running {
  size_t pod;
  NodeId node;
  std::vector<GpuId> gpus;
  std::unique_ptr<ChildProcess> process;
  Clock::time_point deadline;
  bool timed_out = false;
};

// Outcome of a finished process: the workload's exit codes have meanings (kernel_catalog.h).
void record_exit(PodOutcome& o, ReasonTable& reasons, const ExitStatus& s, bool timed_out,
                 double timeout_s) {
  if (timed_out) {
    o.status = PodStatus::kFailed;
    o.reason = reasons.add(fmt::format("timeout: still running after {:.3g} s, killed", timeout_s));
  } else if (s.success()) {
    o.status = PodStatus::kCompleted;
  } else {
    o.status = PodStatus::kFailed;
    o.reason = reasons.add(s.exit_code == kKernelExitOutOfMemory ? "out of memory"
                           : s.exit_code == kKernelExitNoGpu     ? "no GPU visible to the workload"
                                                                 : s.describe());
  }
}

void summarise(RunResult& r, const std::vector<PodSpec>& pods, double window_end_s,
               double allocated_integral, size_t gpus) {
  RunSummary& s = r.summary;
  s.pods = pods.size();
  std::vector<double> queue, jct, slow;
  for (size_t i = 0; i < pods.size(); ++i) {
    const PodOutcome& o = r.pods[i];
    s.count(o.status);
    if (o.status == PodStatus::kUnschedulable) ++s.not_placed_reasons[r.reasons[o.reason]];
    if (o.start_s >= 0) queue.push_back(o.start_s - pods[i].arrival_s);
    if (o.status == PodStatus::kCompleted) {
      jct.push_back(o.finish_s - pods[i].arrival_s);
      if (o.solo_s > 0) slow.push_back(jct.back() / o.solo_s);
    }
  }
  s.queue_delay_s = distribution_of(queue);
  s.jct_s = distribution_of(jct);
  s.slowdown = distribution_of(slow);
  s.window_start_s = pods.empty() ? 0 : pods.front().arrival_s;
  for (const PodSpec& p : pods) s.window_start_s = std::min(s.window_start_s, p.arrival_s);
  s.window_end_s = window_end_s;
  const double window = s.window_end_s - s.window_start_s;
  s.allocation_ratio = window > 0 ? allocated_integral / window : 0;
  s.gpu_hours_provisioned = static_cast<double>(gpus) * window / 3600.0;
  s.gpu_hours_allocated = s.allocation_ratio * s.gpu_hours_provisioned;
}

}  // namespace

LocalReplay replay_local(const Scenario& scenario, const PolicySpec& policy,
                         const std::vector<DetectedGpu>& gpus, const LocalReplayOptions& opt) {
  const auto mech = opt.mechanism ? opt.mechanism : mechanism_for_sharing(policy.sharing.kind);
  if (!mech)
    throw std::runtime_error(
        fmt::format("policy '{}': sharing '{}' has no local mechanism (use --mechanism)",
                    policy.name, policy.sharing.kind));
  if (opt.command.empty() && opt.workload_binary.empty())
    throw std::runtime_error(
        "no workload program: build slicelab-kernel (needs nvcc) or give "
        "--workload-binary or --command");
  if (*mech == Mechanism::kInterposer && opt.interposer_library.empty())
    throw std::runtime_error("the interposer library was not found (--interposer)");
  if (opt.time_scale <= 0) throw std::runtime_error("--time-scale must be positive");

  LocalCluster lc = make_local_cluster(gpus, *mech, scenario.catalog, opt.allow_mig_reconfigure);
  LocalReplay out{scenario, {}};
  Scenario& local = out.local_scenario;
  local.cluster = lc.spec;
  local.catalog = lc.catalog;
  for (PodSpec& p : local.pods) p.allowed_models.clear();  // every pod may use this machine's GPUs
  for (PodSpec& p : local.target_pods) p.allowed_models.clear();
  const std::vector<PodSpec>& pods = local.pods;

  PlacementPolicy placement = build_placement(
      policy.placement, PlacementEnvironment{pods, &local.catalog, local.target_pods});
  // Locally a MIG instance is a schedulable GPU of its own, one pod each: whole cards, whatever
  // the policy's simulated MIG mode would claim before it knows the instance.
  const auto sharing =
      make_sharing_mode(*mech == Mechanism::kMig ? SharingConfig{} : policy.sharing);
  ClusterState cluster(local.cluster, local.catalog, sharing->capacity_units());
  const ClusterState empty(local.cluster, local.catalog, sharing->capacity_units());
  Rng rng(derive_seed(scenario.seed, policy.name));

  RunResult& r = out.result;
  r.policy = policy.name;
  r.placement = placement.describe();
  r.sharing = fmt::format("{} (local: {})", make_sharing_mode(policy.sharing)->describe(),
                          to_string(*mech));
  r.seed = scenario.seed;
  r.pods.resize(pods.size());

  std::vector<PodRequest> req(pods.size());
  for (size_t i = 0; i < pods.size(); ++i) {
    req[i] = make_pod_request(pods[i], *sharing, local.catalog);  // as the simulator does
    r.pods[i].solo_s = pods[i].duration_s;
  }
  std::vector<size_t> order(pods.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return pods[a].arrival_s < pods[b].arrival_s; });

  // Logs go where the caller says (its folder is checked there), else into a fresh folder. The
  // interposer regions always go into a fresh private one: a region left by an earlier run keeps
  // that run's caps (the first process's caps are the container's), and one planted by another
  // user is refused, so reusing a fixed path would cap or block this run's pods.
  const fs::path work = opt.work_dir.empty()
                            ? make_private_folder(fs::temp_directory_path(), "slicelab-local-")
                            : fs::path(opt.work_dir);
  fs::create_directories(work);
  const ScopedPrivateFolder regions(fs::temp_directory_path(), "slicelab-regions-");

  // Declared before the processes so that it outlives them: clients end before the daemon.
  std::unique_ptr<MpsDaemon> mps;
  // An MPS policy with replicas is the device plugin's model: equal limits for every client,
  // set once through the control pipe. Otherwise each pod's own limits go in its environment.
  const bool mps_limits_by_daemon =
      *mech == Mechanism::kMps && policy.sharing.kind == "mps" && policy.sharing.mps_replicas > 0;
  if (*mech == Mechanism::kMps) {
    std::string visible;
    for (const std::string& d : lc.device_ids) visible += (visible.empty() ? "" : ",") + d;
    mps = std::make_unique<MpsDaemon>(opt.mps_control, visible);
    if (mps_limits_by_daemon) {
      std::vector<int64_t> memory_mib;
      memory_mib.reserve(gpus.size());
      for (const DetectedGpu& g : gpus)
        memory_mib.push_back(static_cast<int64_t>(g.memory_bytes >> 20));
      mps->set_replica_limits(policy.sharing.mps_replicas, memory_mib);
    }
  }
  const InterruptGuard interrupt_guard;

  std::vector<size_t> pending;  // arrived, not started; kept ordered by priority then arrival
  std::vector<Running> running;
  size_t next_arrival = 0;
  const auto t0 = Clock::now();
  auto scenario_now = [&] {
    return std::chrono::duration<double>(Clock::now() - t0).count() / opt.time_scale;
  };
  double allocated_integral = 0, last_t = 0;
  auto advance_integral = [&](double t) {
    allocated_integral += (t - last_t) * static_cast<double>(cluster.allocated_units()) /
                          static_cast<double>(std::max<int64_t>(1, cluster.total_units()));
    last_t = t;
  };
  std::vector<GpuId> pick(static_cast<size_t>(std::max(1, cluster.max_gpus_per_node())));
  size_t resolved = 0;

  while (resolved < pods.size()) {
    if (g_interrupted) throw std::runtime_error("interrupted: stopped every pod and cleaned up");
    const double now = scenario_now();
    // Arrivals: pods that can never fit on this machine are reported, not queued forever.
    while (next_arrival < order.size() && pods[order[next_arrival]].arrival_s <= now) {
      const size_t p = order[next_arrival++];
      const bool gpu_mem_ok =
          pods[p].gpu_count == 0 || pods[p].gpu_memory_mib <= empty.gpu_memory_capacity(0);
      if (!empty.fits(0, req[p]) || !gpu_mem_ok) {
        r.pods[p].status = PodStatus::kUnschedulable;
        r.pods[p].reason = r.reasons.add("does not fit on this machine's GPUs");
        ++resolved;
        continue;
      }
      pending.push_back(p);
      std::stable_sort(pending.begin(), pending.end(), [&](size_t a, size_t b) {
        return pods[a].priority > pods[b].priority;  // stable: arrival order within a priority
      });
    }
    // Placement: strict FIFO, or backfill past a blocked head when the scenario allows it.
    for (auto it = pending.begin(); it != pending.end();) {
      const size_t p = *it;
      const std::span<GpuId> gpus_out(pick.data(), static_cast<size_t>(req[p].gpu_count));
      SchedulingCycle cycle{cluster, req[p], static_cast<uint32_t>(p), now, rng};
      const auto node = placement.schedule(cycle, gpus_out);
      if (!node && running.empty()) {  // refused on an idle machine: it never will fit
        r.pods[p].status = PodStatus::kUnschedulable;
        r.pods[p].reason = r.reasons.add("the policy places it on no GPU of this machine");
        ++resolved;
        it = pending.erase(it);
        continue;
      }
      if (!node) {
        if (!scenario.engine.backfill) break;
        ++it;
        continue;
      }
      advance_integral(now);
      cluster.bind(*node, gpus_out, req[p]);
      PodIsolation iso;
      iso.mechanism = *mech;
      for (const GpuId g : gpus_out) iso.devices.push_back(lc.device_ids[g]);
      iso.gpu_milli = pods[p].gpu_milli;
      iso.gpu_memory_mib = pods[p].gpu_memory_mib;
      iso.interposer_library = opt.interposer_library;
      const std::string base = file_safe(pods[p].name.str());
      iso.shared_region = (regions.path() / (base + ".region")).string();
      if (mps) {
        iso.mps_pipe_dir = mps->pipe_dir();
        iso.mps_log_dir = mps->log_dir();
        iso.mps_limits_by_daemon = mps_limits_by_daemon;
      }
      EnvMap env = current_environment();
      for (auto& [k, v] : isolation_environment(iso)) env[k] = v;
      const double real_s = pods[p].duration_s * opt.time_scale;
      const std::string kernel =
          find_kernel(pods[p].workload_class) ? pods[p].workload_class.str() : opt.default_kernel;
      env["SLICELAB_POD"] = pods[p].name;
      std::vector<std::string> argv;
      if (pods[p].gpu_count == 0) {  // a CPU-only pod holds no GPU: it only takes its time
        argv = {"/bin/sleep", fmt::format("{:.6f}", real_s)};
      } else if (opt.command.empty()) {
        argv = {opt.workload_binary,           kernel,     "--duration",
                fmt::format("{:.6f}", real_s), "--device", pods[p].gpu_count > 1 ? "all" : "0"};
      } else {
        std::string cmd = replace_all(opt.command, "{pod}", pods[p].name.str());
        cmd = replace_all(cmd, "{kernel}", kernel);
        cmd = replace_all(cmd, "{duration}", fmt::format("{:.6f}", real_s));
        argv = {"/bin/sh", "-c", cmd};
      }
      const double timeout_s = real_s * opt.timeout_factor + opt.timeout_grace_s;
      const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                               std::chrono::duration<double>(timeout_s));
      r.pods[p].status = PodStatus::kRunning;
      r.pods[p].start_s = now;
      r.pods[p].node = static_cast<int32_t>(*node);
      r.pods[p].gpu_begin = static_cast<uint32_t>(r.pod_gpus.size());
      for (const GpuId g : gpus_out)
        r.pod_gpus.push_back(static_cast<uint16_t>(g - cluster.first_gpu(*node)));
      r.pods[p].gpu_count = static_cast<uint8_t>(r.pod_gpus.size() - r.pods[p].gpu_begin);
      running.push_back(Running{
          p, *node, std::vector<GpuId>(gpus_out.begin(), gpus_out.end()),
          std::make_unique<ChildProcess>(argv, env, (work / (base + ".log")).string()), deadline});
      it = pending.erase(it);
    }
    // Finishes and timeouts.
    for (auto it = running.begin(); it != running.end();) {
      std::optional<ExitStatus> s = it->process->poll();
      if (!s && Clock::now() >= it->deadline) {
        it->timed_out = true;
        s = it->process->terminate(std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::duration<double>(opt.kill_grace_s)));
      }
      if (!s) {
        ++it;
        continue;
      }
      const double t = scenario_now();
      advance_integral(t);
      PodOutcome& o = r.pods[it->pod];
      o.finish_s = t;
      const double timeout_s =
          pods[it->pod].duration_s * opt.time_scale * opt.timeout_factor + opt.timeout_grace_s;
      record_exit(o, r.reasons, *s, it->timed_out, timeout_s);
      cluster.unbind(it->node, it->gpus, req[it->pod]);
      ++resolved;
      it = running.erase(it);
    }
    if (resolved < pods.size()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const double end = scenario_now();
  advance_integral(end);
  if (mps) mps->stop();
  summarise(r, pods, end, allocated_integral, cluster.gpu_count());
  return out;
}

}  // namespace slicelab
