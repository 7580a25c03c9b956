// A sharing mode as the scenario names it, and the factory that builds the mode from it.
// New modes (MIG, MPS, interposer) add a kind here and a SharingMode implementation.
#pragma once

#include <memory>
#include <string>

#include "sim/mig/mig_settings.h"
#include "sim/sharing/sharing_mode.h"

namespace slicelab {

struct SharingConfig {
  std::string kind = "whole-card";  // whole-card | time-slice | gpu-share | mig
  int replicas = 4;
  double context_switch_overhead = 0.05;
  // --- MIG (kind "mig"): layout and dynamic re-partitioning; see docs/mig.md ---
  std::shared_ptr<const MigSettings> mig;
};

std::unique_ptr<SharingMode> make_sharing_mode(const SharingConfig& config);

}  // namespace slicelab
