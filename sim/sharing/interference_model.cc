#include "sim/sharing/interference_model.h"

#include <algorithm>

namespace slicelab {

InterferenceFeatures interference_features(std::span<const TenantLoad> tenants, size_t i) {
  InterferenceFeatures x;
  for (size_t j = 0; j < tenants.size(); ++j) {
    if (j == i) continue;
    x.bandwidth += tenants[j].bandwidth;
    x.launch += tenants[j].launch_khz;
  }
  x.bandwidth *= tenants[i].bandwidth;
  return x;
}

double interference_factor(const InterferenceCoefficients& c, const InterferenceFeatures& x) {
  // A fitted coefficient may come out slightly negative on noisy data; a neighbour never
  // speeds a tenant up, so the factor is clamped at 1.
  return std::max(1.0, 1.0 + c.bandwidth * x.bandwidth + c.launch * x.launch);
}

}  // namespace slicelab
