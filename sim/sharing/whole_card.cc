#include "sim/sharing/whole_card.h"

#include <algorithm>

namespace slicelab {

void WholeCard::rates(std::span<const TenantLoad> /*tenants*/, std::span<double> out) const {
  std::fill(out.begin(), out.end(), 1.0);
}

}  // namespace slicelab
