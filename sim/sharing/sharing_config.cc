#include "sim/sharing/sharing_config.h"

#include <stdexcept>

#include "sim/mig/mig_sharing.h"
#include "sim/sharing/gpu_share.h"
#include "sim/sharing/time_slice.h"
#include "sim/sharing/whole_card.h"

namespace slicelab {

std::unique_ptr<SharingMode> make_sharing_mode(const SharingConfig& config) {
  if (config.kind == "whole-card") return std::make_unique<WholeCard>();
  if (config.kind == "gpu-share") return std::make_unique<GpuShare>();
  if (config.kind == "time-slice")
    return std::make_unique<TimeSlice>(config.replicas, config.context_switch_overhead);
  if (config.kind == "mig") {
    if (!config.mig) throw std::invalid_argument("sharing mode mig needs its MIG settings");
    return std::make_unique<MigSharing>(config.mig);
  }
  throw std::invalid_argument("unknown sharing mode " + config.kind);
}

}  // namespace slicelab
