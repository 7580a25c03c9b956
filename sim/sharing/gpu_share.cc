#include "sim/sharing/gpu_share.h"

#include <algorithm>

namespace slicelab {

GpuTerms GpuShare::declare(std::span<const TenantLoad> /*tenants*/,
                           std::span<TenantTerms> /*terms*/) const {
  return {.capacity = GpuTerms::kUnlimited};
}

}  // namespace slicelab
