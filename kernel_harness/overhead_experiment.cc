#include "kernel_harness/overhead_experiment.h"

#include <fmt/format.h>

#include <stdexcept>

#include "kernels/kernel_catalog.h"

namespace slicelab {

long default_units(const std::string& kernel) {
  if (kernel == "launch-storm") return 50000;
  if (kernel == "graph-replay") return 5000;
  if (kernel == "alloc-churn") return 1000;
  if (kernel == "inference-mix") return 2000;
  return 200;  // fma, triad: about 1-5 ms per unit
}

nlohmann::ordered_json measure_overhead(const HarnessTools& tools, const OverheadOptions& o,
                                        const DetectedGpu& gpu) {
  std::vector<std::string> kernels = o.kernels;
  if (kernels.empty())
    for (const KernelInfo& k : kernel_catalog()) kernels.emplace_back(k.name);
  nlohmann::ordered_json out;
  out["experiment"] = "overhead";
  out["gpu"] = {{"index", gpu.index}, {"name", gpu.name}};
  out["repetitions"] = o.repetitions;
  out["interposer"] = tools.interposer_library;
  const std::string device = std::to_string(gpu.index);
  for (const std::string& k : kernels) {
    if (!find_kernel(k))
      throw std::runtime_error(fmt::format("unknown kernel '{}' (known: {})", k, kernel_names()));
    const long units = o.units > 0 ? o.units : default_units(k);
    const std::vector<std::string> args{"--reps", std::to_string(units), "--device", "0"};
    const EnvMap plain_env =
        client_environment(tools, Mechanism::kWholeCard, device, 1.0, 0, nullptr);
    const EnvMap pre_env =
        client_environment(tools, Mechanism::kInterposer, device, 1.0, 0, nullptr);
    std::vector<double> plain, preloaded;
    // Alternating the variants spreads slow drifts (clocks, temperature) over both evenly.
    for (int rep = 0; rep < o.repetitions; ++rep) {
      for (const bool with : {false, true}) {
        const KernelResult r = run_kernel(tools, k, args, with ? pre_env : plain_env,
                                          fmt::format("overhead-{}-{}-{}", k, with, rep));
        if (!r.ok())
          throw std::runtime_error(
              fmt::format("{} {} the interposer: {}", k, with ? "with" : "without", r.error()));
        (with ? preloaded : plain).push_back(r.per_unit_ns());
      }
    }
    const Spread p = spread_of(plain), w = spread_of(preloaded);
    const double ratio = p.median > 0 ? w.median / p.median : 0;
    out["kernels"].push_back({{"kernel", k},
                              {"units_per_run", units},
                              {"per_unit_ns_plain", to_json(p)},
                              {"per_unit_ns_interposer", to_json(w)},
                              {"overhead_ns", w.median - p.median},
                              {"overhead_ratio", ratio},
                              {"overhead_percent", (ratio - 1) * 100}});
  }
  return out;
}

}  // namespace slicelab
