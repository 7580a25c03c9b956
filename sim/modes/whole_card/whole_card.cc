#include "sim/modes/whole_card/whole_card.h"

#include <algorithm>

namespace slicelab {

GpuTerms WholeCard::declare(std::span<const TenantLoad> /*tenants*/,
                            std::span<TenantTerms> /*terms*/) const {
  return {};
}

std::unique_ptr<SharingMode> make_whole_card_mode(const SharingConfig& /*config*/) {
  return std::make_unique<WholeCard>();
}

}  // namespace slicelab
