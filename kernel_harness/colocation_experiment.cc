#include "kernel_harness/colocation_experiment.h"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <stdexcept>

namespace slicelab {

std::string colocation_csv(const std::vector<ColocationRow>& rows) {
  std::string s = std::string(kColocationCsvHeader) + "\n";
  for (const ColocationRow& r : rows)
    s += fmt::format("{},{},{},{:.6g},{:.6g},{:.6g},{:.6g}\n", r.class_a, r.class_b, r.mode,
                     r.cap_a, r.cap_b, r.slowdown_a, r.slowdown_b);
  return s;
}

std::vector<ColocationRow> measure_colocation(const HarnessTools& tools, const ColocationOptions& o,
                                              const std::vector<DetectedGpu>& gpus,
                                              std::vector<std::string>& skipped) {
  if (gpus.empty()) throw std::runtime_error("colocation: no GPU");
  const DetectedGpu& gpu = gpus.front();
  const std::string device = std::to_string(gpu.index);
  const std::vector<std::string> args{"--duration", fmt::format("{}", o.duration_s), "--device",
                                      "0"};
  auto failed = [](const std::string& what, const KernelResult& r) {
    return std::runtime_error(fmt::format("colocation: {} failed: {}", what, r.error()));
  };
  std::map<std::string, double> solo;  // per-unit ns of each kernel alone on the whole GPU
  for (const std::string& k : o.kernels) {
    const KernelResult r = run_kernel(
        tools, k, args, client_environment(tools, Mechanism::kWholeCard, device, 1.0, 0, nullptr),
        "colocation-solo-" + k);
    if (!r.ok()) throw failed(k + " alone", r);
    solo[k] = r.per_unit_ns();
  }
  std::vector<ColocationRow> rows;
  for (const Mechanism m : o.modes) {
    // Where each of the pair runs, and the caps each configuration gives them.
    std::string dev_a = device, dev_b = device;
    std::vector<std::pair<double, double>> caps = o.caps;
    std::unique_ptr<MpsDaemon> mps;
    if (m == Mechanism::kWholeCard) {
      if (gpus.size() < 2) {
        skipped.push_back("whole-card: needs two GPUs (one per class)");
        continue;
      }
      dev_b = std::to_string(gpus[1].index);
      caps = {{1.0, 1.0}};
    } else if (m == Mechanism::kTimeSlice) {
      caps = {{1.0, 1.0}};
    } else if (m == Mechanism::kMig) {
      if (gpu.mig_instances.size() < 2) {
        skipped.push_back("mig: needs two MIG instances on the first GPU");
        continue;
      }
      dev_a = gpu.mig_instances[0].uuid;
      dev_b = gpu.mig_instances[1].uuid;
      const double total = static_cast<double>(gpu.memory_bytes);
      caps = {{static_cast<double>(gpu.mig_instances[0].memory_bytes) / total,
               static_cast<double>(gpu.mig_instances[1].memory_bytes) / total}};
    } else if (m == Mechanism::kMps) {
      try {
        mps = open_mps(tools, device);
      } catch (const std::exception& e) {
        skipped.push_back(fmt::format("mps: {}", e.what()));
        continue;
      }
    }
    for (size_t i = 0; i < o.kernels.size(); ++i) {
      for (size_t j = i; j < o.kernels.size(); ++j) {
        const std::string& a = o.kernels[i];
        const std::string& b = o.kernels[j];
        for (const auto& [cap_a, cap_b] : caps) {
          const std::string tag = fmt::format("colocation-{}-{}-{}", to_string(m), a, b);
          KernelProcess pa(tools, a, args, client_environment(tools, m, dev_a, cap_a, 0, mps.get()),
                           tag + "-a");
          KernelProcess pb(tools, b, args, client_environment(tools, m, dev_b, cap_b, 0, mps.get()),
                           tag + "-b");
          pa.limit_s = pb.limit_s = o.duration_s * 3 + 30;
          const KernelResult ra = pa.wait();
          const KernelResult rb = pb.wait();
          if (!ra.ok()) throw failed(tag + " (a)", ra);
          if (!rb.ok()) throw failed(tag + " (b)", rb);
          rows.push_back({a, b, to_string(m), cap_a, cap_b, ra.per_unit_ns() / solo[a],
                          rb.per_unit_ns() / solo[b]});
        }
      }
    }
    if (mps) mps->stop();
  }
  return rows;
}

}  // namespace slicelab
