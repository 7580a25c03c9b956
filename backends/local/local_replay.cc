#include "backends/local/local_replay.h"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <limits>
#include <memory>
#include <stdexcept>
#include <thread>

#include "backends/local/child_process.h"
#include "backends/local/local_cluster.h"
#include "backends/local/mps_daemon.h"
#include "backends/local/private_folder.h"
#include "kernels/kernel_catalog.h"
#include "sim/cluster_state.h"
#include "sim/engine/arrival_order.h"
#include "sim/engine/queue_scheduler.h"
#include "sim/engine/run_accounting.h"
#include "sim/engine/static_feasibility.h"
#include "sim/modes/mode_registry.h"
#include "sim/modes/mps/mps_settings.h"
#include "sim/placement/placement_config.h"
#include "sim/sharing/pod_request.h"
#include "sim/sharing/sharing_run.h"
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
  uint32_t pod;
  NodeId node;
  std::vector<GpuId> gpus;
  std::unique_ptr<ChildProcess> process;
  Clock::time_point deadline;
  bool timed_out = false;
};

// Outcome of a finished process: the workload's exit codes have meanings (kernel_catalog.h).
// The failure causes are the simulator's where the exit says which: out of memory is over the
// pod's own cap where the mechanism caps memory, over its MIG instance under MIG, and its
// neighbours' doing where nothing isolates memory; every other failure is the process's own.
void record_exit(PodOutcome& o, ReasonTable& reasons, const ExitStatus& s, bool timed_out,
                 double timeout_s, Mechanism mech) {
  o.failure = FailureCause::kProcessFailed;
  if (timed_out) {
    o.status = PodStatus::kFailed;
    o.reason = reasons.add(fmt::format("timeout: still running after {:.3g} s, killed", timeout_s));
  } else if (s.success()) {
    o.status = PodStatus::kCompleted;
    o.failure = FailureCause::kNone;
  } else if (s.exit_code == kKernelExitOutOfMemory) {
    o.status = PodStatus::kFailed;
    o.reason = reasons.add("out of memory");
    o.failure = mech == Mechanism::kMig ? FailureCause::kInstanceMemory
                : mech == Mechanism::kInterposer || mech == Mechanism::kMps
                    ? FailureCause::kOverMemoryCap
                    : FailureCause::kNeighboursMemory;
  } else {
    o.status = PodStatus::kFailed;
    o.reason = reasons.add(s.exit_code == kKernelExitNoGpu ? "no GPU visible to the workload"
                                                           : s.describe());
  }
}

// The engine's queue asks for placements through this; `Fn` is the local run's attempt.
template <typename Fn>
class LocalAttempt final : public PlacementAttempt {
 public:
  explicit LocalAttempt(Fn fn) : fn_(std::move(fn)) {}
  bool try_place(uint32_t pod) override { return fn_(pod); }

 private:
  Fn fn_;
};

}  // namespace

LocalReplay replay_local(const Scenario& scenario, const PolicySpec& policy,
                         const std::vector<DetectedGpu>& gpus, const LocalReplayOptions& opt) {
  const auto mech = opt.mechanism ? opt.mechanism : mechanism_for_sharing(policy.sharing.kind);
  if (!mech)
    throw std::runtime_error(
        fmt::format("policy '{}': sharing '{}' has no local mechanism (use --mechanism)",
                    policy.name, policy.sharing.kind));
  if (!scenario.services.empty())
    throw std::runtime_error(
        "the local backend replays batch pods; a scenario with services runs in the simulator "
        "only (docs/inference-services.md)");
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
  Rng rng(derive_seed(scenario.seed, policy.name));

  // GPUs' worth of capacity a request holds, as the engine's allocation integral counts it.
  auto claim_gpus = [&](const PodRequest& q) {
    return static_cast<double>(q.claim_units) / static_cast<double>(cluster.capacity_units()) *
           static_cast<double>(q.gpu_count);
  };

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
  ArrivalOrder order;  // the engine's: by arrival time, equal times in workload order
  order.prepare(pods, pods.size());

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
  const auto mps_settings = policy.sharing.mode_settings<MpsSettings>();
  const int mps_replicas = mps_settings ? mps_settings->replicas : 0;
  const bool mps_limits_by_daemon =
      *mech == Mechanism::kMps && policy.sharing.kind == "mps" && mps_replicas > 0;
  if (*mech == Mechanism::kMps) {
    std::string visible;
    for (const std::string& d : lc.device_ids) visible += (visible.empty() ? "" : ",") + d;
    mps = std::make_unique<MpsDaemon>(opt.mps_control, visible);
    if (mps_limits_by_daemon) {
      std::vector<int64_t> memory_mib;
      memory_mib.reserve(gpus.size());
      for (const DetectedGpu& g : gpus)
        memory_mib.push_back(static_cast<int64_t>(g.memory_bytes >> 20));
      mps->set_replica_limits(mps_replicas, memory_mib);
    }
  }
  const InterruptGuard interrupt_guard;

  // The engine's queue discipline (FIFO or backfill) and the engine's accounting and summary,
  // driven by measured starts and finishes instead of simulated ones (docs/local-backend.md).
  QueueScheduler queue(scenario.engine.backfill);
  queue.prepare(req);
  // The mode's run state adds nothing a measured run reads (no plugins, nothing stranded).
  const SharingRun no_mode_state;
  RunAccounting accounting(cluster, local.catalog,
                           local.target_pods.empty() ? pods : local.target_pods, pods.size(),
                           /*fill=*/false);
  const double t0 = pods.empty() ? 0.0 : pods[order[0]].arrival_s;
  accounting.start_at(t0);
  const double sample_interval = scenario.engine.sample_interval_s;
  double next_sample = sample_interval > 0 ? t0 : std::numeric_limits<double>::infinity();

  std::vector<Running> running;
  size_t next_arrival = 0;
  const auto t_start = Clock::now();
  auto scenario_now = [&] {
    return std::chrono::duration<double>(Clock::now() - t_start).count() / opt.time_scale;
  };
  // The time of the events being handled: one reading per poll, so that the accounting's clock
  // never runs backwards; a timeout's kill moves it on.
  double now = 0;
  auto advance = [&](double t) {
    now = std::max(now, t);
    accounting.advance(std::max(now, t0), no_mode_state);
  };
  std::vector<GpuId> pick(static_cast<size_t>(std::max(1, cluster.max_gpus_per_node())));
  size_t resolved = 0;

  // One placement attempt, as the engine's: schedule, bind and start the pod's process.
  auto try_place = [&](uint32_t p) {
    accounting.placement_attempted();
    const std::span<GpuId> gpus_out(pick.data(), static_cast<size_t>(req[p].gpu_count));
    SchedulingCycle cycle{cluster, req[p], p, now, rng};
    const auto node = placement.schedule(cycle, gpus_out);
    if (!node) {
      accounting.placement_failed();
      if (!running.empty()) return false;
      // Refused on an idle machine it will never fit (the simulator would keep it waiting to
      // the end of the run; a replay would never end).
      r.pods[p].status = PodStatus::kUnschedulable;
      r.pods[p].reason = r.reasons.add("the policy places it on no GPU of this machine");
      ++resolved;
      return true;
    }
    cluster.bind(*node, gpus_out, req[p]);
    accounting.pod_bound(*node, gpus_out);
    accounting.allocation_changed(cluster.model(*node), claim_gpus(req[p]));
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
    return true;
  };
  LocalAttempt attempt(try_place);
  // Every pod is tried: the shape shortcut is the simulator's saving, not a rule.
  constexpr bool kSkipFailedShapes = false;

  while (resolved < pods.size()) {
    if (g_interrupted) throw std::runtime_error("interrupted: stopped every pod and cleaned up");
    now = std::max(now, scenario_now());
    // Samples see the state before this poll's events, as the engine's before an event's.
    for (; next_sample <= now; next_sample += sample_interval) {
      // Not back past a timeout's kill, which moved the clock on within the last poll.
      accounting.advance(std::max({next_sample, t0, accounting.now()}), no_mode_state);
      accounting.take_sample(next_sample, static_cast<uint32_t>(running.size()),
                             static_cast<uint32_t>(queue.pending().size()));
    }
    // Finishes and timeouts first (the engine's order at equal times), each followed by a pass
    // over the queue, as a finish in the engine is.
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
      advance(it->timed_out ? scenario_now() : now);
      accounting.event_done();
      const uint32_t p = it->pod;
      PodOutcome& o = r.pods[p];
      o.finish_s = now;
      const double timeout_s =
          pods[p].duration_s * opt.time_scale * opt.timeout_factor + opt.timeout_grace_s;
      record_exit(o, r.reasons, *s, it->timed_out, timeout_s, *mech);
      cluster.unbind(it->node, it->gpus, req[p]);
      accounting.node_changed(it->node);
      accounting.allocation_changed(cluster.model(it->node), -claim_gpus(req[p]));
      ++resolved;
      it = running.erase(it);
      const size_t kept = static_cast<size_t>(it - running.begin());
      queue.schedule(attempt, kSkipFailedShapes);  // may start pods: `running` grows
      it = running.begin() + static_cast<std::ptrdiff_t>(kept);
    }
    // Arrivals: a pod that no node of this machine could ever hold is reported, not queued.
    while (next_arrival < pods.size() && pods[order[next_arrival]].arrival_s <= now) {
      const uint32_t p = order[next_arrival];
      advance(now);
      accounting.event_done();
      if (auto why = never_fits_reason(local.cluster, local.catalog, req[p])) {
        r.pods[p].status = PodStatus::kUnschedulable;
        r.pods[p].reason = r.reasons.add("no node could ever hold it: " + *why);
        ++resolved;
      } else {
        queue.arrive(p, pods[p].priority, next_arrival, attempt, kSkipFailedShapes);
      }
      ++next_arrival;
    }
    if (resolved < pods.size()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  advance(scenario_now());
  if (sample_interval > 0) {
    const auto& samples = accounting.samples();
    if (samples.empty() || samples.back().time_s < now)
      accounting.take_sample(now, 0, static_cast<uint32_t>(queue.pending().size()));
  }
  if (mps) mps->stop();
  // The engine's summary, from the measured outcomes.
  r.summary = accounting.summarize(pods, r.pods, r.reasons, no_mode_state);
  r.samples = accounting.take_samples();
  return out;
}

}  // namespace slicelab
