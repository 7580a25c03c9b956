// The interference model shared by every sharing mode: how much co-located tenants slow each
// other through shared memory bandwidth and kernel-launch traffic, linear in its coefficients.
#pragma once

#include <cstddef>
#include <span>

#include "sim/sharing/tenant_load.h"

namespace slicelab {

// Coefficients of one sharing mode (fitted by `slicelab calibrate`, docs/sharing-models.md).
struct InterferenceCoefficients {
  double bandwidth = 0.0;  // a_m: slowdown per unit of bw_i * sum_j bw_j
  double launch = 0.0;     // b_m: slowdown per neighbour launch per millisecond
  bool any() const { return bandwidth != 0.0 || launch != 0.0; }
};

// The two regressors of tenant i: x_bw = bw_i * sum_{j != i} bw_j, x_launch = sum_{j != i} l_j.
struct InterferenceFeatures {
  double bandwidth = 0.0;
  double launch = 0.0;
};
InterferenceFeatures interference_features(std::span<const TenantLoad> tenants, size_t i);

// f_i = 1 + a_m * x_bw + b_m * x_launch >= 1: tenant i runs 1/f_i as fast as its compute
// share alone would let it.
double interference_factor(const InterferenceCoefficients& c, const InterferenceFeatures& x);
inline double interference_factor(const InterferenceCoefficients& c,
                                  std::span<const TenantLoad> tenants, size_t i) {
  return interference_factor(c, interference_features(tenants, i));
}

}  // namespace slicelab
