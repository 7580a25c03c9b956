// A sharing mode as the scenario names it, and the factory that builds the mode from it.
// New modes (MIG, MPS, interposer) add a kind here and a SharingMode implementation.
#pragma once

#include <memory>
#include <string>

#include "sim/sharing/sharing_mode.h"

namespace slicelab {

struct SharingConfig {
  std::string kind = "whole-card";  // whole-card | time-slice | gpu-share
  int replicas = 4;
  double context_switch_overhead = 0.05;
};

std::unique_ptr<SharingMode> make_sharing_mode(const SharingConfig& config);

}  // namespace slicelab
