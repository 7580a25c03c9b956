#include "sim/modes/gpu_share/gpu_share.h"

#include <algorithm>

namespace slicelab {

GpuTerms GpuShare::declare(std::span<const TenantLoad> /*tenants*/,
                           std::span<TenantTerms> /*terms*/) const {
  return {.capacity = GpuTerms::kUnlimited};
}

std::unique_ptr<SharingMode> make_gpu_share_mode(const SharingConfig& /*config*/) {
  return std::make_unique<GpuShare>();
}

}  // namespace slicelab
