// Sharing modes and replicas for the serving model's tests: each mode as the grid and the
// two-tenant cases of docs/inference-services.md set it up (builtin interference coefficients).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/modes/interposer/interposer_share.h"
#include "sim/modes/mig/mig_sharing.h"
#include "sim/modes/mps/mps.h"
#include "sim/modes/time_slice/time_slice.h"
#include "sim/modes/whole_card/whole_card.h"
#include "sim/serving/serving_tenants.h"

namespace slicelab::testing {

// The builtin calibration's coefficients (sim/interference/builtin_calibration.cc).
inline std::unique_ptr<SharingMode> serving_mode(const std::string& kind) {
  if (kind == "time-slice")
    return std::make_unique<TimeSlice>(4, 0.05, InterferenceCoefficients{0.15, 0.01});
  if (kind == "mps") return std::make_unique<Mps>(Mps::Config{.interference = {0.80, 0.005}});
  if (kind == "mig") return std::make_unique<MigSharing>(std::make_shared<MigSettings>());
  if (kind == "interposer")
    return std::make_unique<InterposerShare>(InterposerShare::Config{23.0, 1.0, {0.15, 0.01}});
  return std::make_unique<WholeCard>();
}

// A replica of the builtin `inference` class (35% of the memory bandwidth, 8 launches per ms)
// holding half the GPU: a MIG instance of half its SMs, or a 50% thread or compute cap.
inline ServingReplica half_gpu_replica(const std::string& kind, ServiceTime service,
                                       int concurrency, double request_sm, double rate) {
  ServingReplica r;
  r.serving = {service, concurrency, request_sm, 100000};
  r.arrival_rate = rate;
  r.load.bandwidth = 0.35;
  r.load.launch_khz = 8.0;
  r.load.cap = kind == "whole-card" ? 1.0 : 0.5;
  r.load.sm_cap = kind == "mig" ? 0.5 : 1.0;
  return r;
}

}  // namespace slicelab::testing
