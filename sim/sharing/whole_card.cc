#include "sim/sharing/whole_card.h"

#include <algorithm>

namespace slicelab {

GpuTerms WholeCard::declare(std::span<const TenantLoad> /*tenants*/,
                            std::span<TenantTerms> /*terms*/) const {
  return {};
}

}  // namespace slicelab
