// Helpers for the sharing-model tests: one-call engine runs that pass workload classes, and
// loads for calling a mode's rate model directly.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "sim/interference/workload_class.h"
#include "sim/modes/mode_registry.h"
#include "tests/support/sim_fixtures.h"

namespace slicelab::testing {

inline RunResult run_with_classes(const ClusterSpec& cluster, const std::vector<PodSpec>& pods,
                                  const SharingConfig& sharing, const WorkloadClasses& classes,
                                  uint64_t seed = 1) {
  PlacementPolicy placement = build_placement(*placement_preset("first-fit"));
  const auto mode = make_sharing_mode(sharing);
  RunInputs in{cluster, catalog(), std::span<const PodSpec>(pods), *mode, quiet_config(), seed};
  in.classes = &classes;
  return run_simulation(in, placement);
}

inline PodSpec classed(PodSpec p, std::string cls) {
  p.workload_class = std::move(cls);
  return p;
}

inline TenantLoad load(double sm, double cap, double bandwidth = 0, double launch_khz = 0) {
  TenantLoad t;
  t.sm_demand = sm;
  t.cap = cap;
  t.bandwidth = bandwidth;
  t.launch_khz = launch_khz;
  return t;
}

}  // namespace slicelab::testing
