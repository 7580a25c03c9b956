#include "kernel_harness/isolation_experiment.h"

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <stdexcept>

#include "kernels/kernel_catalog.h"

namespace slicelab {
namespace {

// The arguments every run of the kernel gets: its duration, the device, the scale.
std::vector<std::string> kernel_args(const IsolationOptions& o) {
  std::vector<std::string> args{"--duration", fmt::format("{}", o.duration_s), "--device", "0"};
  if (o.scale != 1) {
    args.push_back("--scale");
    args.push_back(fmt::format("{}", o.scale));
  }
  return args;
}

struct Client {
  double configured = 0;
  std::string device;
  int64_t memory_mib = 0;
  long hold_mib = 0;
};

// Starts every client at once, then waits for all of them.
std::vector<KernelResult> run_together(const HarnessTools& tools, const IsolationOptions& o,
                                       Mechanism m, const std::vector<Client>& clients,
                                       const MpsDaemon* mps, const std::string& tag) {
  std::vector<std::unique_ptr<KernelProcess>> procs;
  for (size_t i = 0; i < clients.size(); ++i) {
    const Client& c = clients[i];
    std::vector<std::string> args = kernel_args(o);
    if (c.hold_mib > 0) {
      args.push_back("--hold-mib");
      args.push_back(std::to_string(c.hold_mib));
    }
    const std::string region =
        fmt::format("{}/{}-{}.region", tools.work_dir.empty() ? "/tmp" : tools.work_dir, tag, i);
    procs.push_back(std::make_unique<KernelProcess>(
        tools, o.kernel, args,
        client_environment(tools, m, c.device, m == Mechanism::kTimeSlice ? 1.0 : c.configured,
                           c.memory_mib, mps, region),
        fmt::format("{}-{}", tag, i)));
    procs.back()->limit_s = o.duration_s * 3 + 30;
  }
  std::vector<KernelResult> results;
  results.reserve(procs.size());
  for (auto& p : procs) results.push_back(p->wait());
  return results;
}

}  // namespace

nlohmann::ordered_json measure_isolation(const HarnessTools& tools, const IsolationOptions& o,
                                         const DetectedGpu& gpu) {
  if (o.shares.empty()) throw std::runtime_error("isolation: no client shares given");
  const std::string device = std::to_string(gpu.index);
  const int64_t gpu_mib = static_cast<int64_t>(gpu.memory_bytes >> 20);
  nlohmann::ordered_json out;
  out["experiment"] = "isolation";
  out["gpu"] = {{"index", gpu.index}, {"name", gpu.name}, {"memory_mib", gpu_mib}};
  out["kernel"] = o.kernel;
  out["scale"] = o.scale;
  out["duration_s"] = o.duration_s;
  const KernelResult solo = run_kernel(
      tools, o.kernel, kernel_args(o),
      client_environment(tools, Mechanism::kWholeCard, device, 1.0, 0, nullptr), "isolation-solo");
  if (!solo.ok()) throw std::runtime_error("isolation: the solo run failed: " + solo.error());
  const double solo_ns = solo.per_unit_ns();
  out["solo_per_unit_ns"] = solo_ns;

  for (const Mechanism m : o.mechanisms) {
    nlohmann::ordered_json mj;
    mj["mechanism"] = to_string(m);
    std::unique_ptr<MpsDaemon> mps;
    std::vector<Client> clients;
    const size_t n = o.shares.size();
    if (m == Mechanism::kMig) {
      if (gpu.mig_instances.empty()) {
        mj["skipped"] = "no MIG instances on this GPU (slicelab never creates them)";
        out["mechanisms"].push_back(mj);
        continue;
      }
      // One client per instance; its configured share is the instance's part of the memory,
      // which for MIG's balanced profiles is also its part of the SMs.
      for (size_t i = 0; i < std::min(n, gpu.mig_instances.size()); ++i)
        clients.push_back({static_cast<double>(gpu.mig_instances[i].memory_bytes) /
                               static_cast<double>(gpu.memory_bytes),
                           gpu.mig_instances[i].uuid, 0, 0});
    } else {
      for (const double s : o.shares)
        clients.push_back(
            {m == Mechanism::kTimeSlice ? 1.0 / static_cast<double>(n) : s, device, 0, 0});
    }
    if (m == Mechanism::kMps) {
      try {
        mps = open_mps(tools, device);
      } catch (const std::exception& e) {
        mj["skipped"] = e.what();
        out["mechanisms"].push_back(mj);
        continue;
      }
    }
    const auto results =
        run_together(tools, o, m, clients, mps.get(), fmt::format("isolation-{}", to_string(m)));
    double sum_err = 0, max_err = 0;
    for (size_t i = 0; i < clients.size(); ++i) {
      nlohmann::ordered_json cj{{"configured_share", clients[i].configured},
                                {"device", clients[i].device}};
      if (!results[i].ok()) {
        cj["error"] = results[i].error();
      } else {
        const double achieved = solo_ns / results[i].per_unit_ns();
        const double err = std::abs(achieved - clients[i].configured);
        cj["per_unit_ns"] = results[i].per_unit_ns();
        cj["achieved_share"] = achieved;
        cj["error"] = err;
        sum_err += err;
        max_err = std::max(max_err, err);
      }
      mj["clients"].push_back(cj);
    }
    mj["mean_abs_error"] = sum_err / static_cast<double>(clients.size());
    mj["max_abs_error"] = max_err;

    // Memory isolation: client 0 asks for 64 MiB past its cap; the others stay well inside.
    if (o.memory_test && (m == Mechanism::kInterposer || m == Mechanism::kMps)) {
      std::vector<Client> mem = clients;
      for (Client& c : mem) {
        c.memory_mib = std::max<int64_t>(256, static_cast<int64_t>(c.configured * gpu_mib));
        c.hold_mib = c.memory_mib / 2;
      }
      mem[0].hold_mib = mem[0].memory_mib + 64;
      const auto mr =
          run_together(tools, o, m, mem, mps.get(), fmt::format("memory-{}", to_string(m)));
      const bool oom = mr[0].status.exit_code == kKernelExitOutOfMemory;
      bool neighbours = true;
      for (size_t i = 1; i < mr.size(); ++i) neighbours = neighbours && mr[i].ok();
      mj["memory_isolation"] = {{"cap_mib", mem[0].memory_mib},
                                {"over_cap_request_mib", mem[0].hold_mib},
                                {"over_cap_client", mr[0].ok() ? "ran" : mr[0].error()},
                                {"over_cap_client_got_oom", oom},
                                {"neighbours_completed", neighbours},
                                {"passed", oom && neighbours}};
    }
    if (mps) mps->stop();
    out["mechanisms"].push_back(mj);
  }
  return out;
}

}  // namespace slicelab
