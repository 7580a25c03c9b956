#include "sim/modes/mig/mig_run.h"

namespace slicelab {

MigRun::MigRun(const RunSetup& setup, const MigSettings& settings)
    : state_(setup.cluster, setup.catalog, settings, setup.pods, setup.requests),
      plugin_(state_, setup.pods.size()) {}

void MigRun::apply_sm_caps(GpuId g, std::span<const uint32_t> pods,
                           std::span<TenantLoad> loads) const {
  for (size_t k = 0; k < pods.size(); ++k) loads[k].sm_cap = state_.sm_share(g, pods[k]);
}

void MigRun::write_results(RunSummary& summary, double stranded_gpu_s, double gpu_s) const {
  // Stranded: time-weighted share of the GPU capacity in free MIG instances whose profile no
  // pending or not yet arrived pod takes (docs/mig.md).
  ModeResults& r = summary.mode_results;
  r.set_figure("mig.reconfigurations", static_cast<double>(state_.reconfigurations()));
  r.set_figure("mig.reconfiguration_gpu_s", state_.reconfiguration_gpu_s());
  r.set_figure("mig.stranded_ratio", gpu_s > 0 ? stranded_gpu_s / gpu_s : 0);
}

}  // namespace slicelab
