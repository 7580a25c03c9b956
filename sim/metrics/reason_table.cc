#include "sim/metrics/reason_table.h"

namespace slicelab {

uint32_t ReasonTable::add(std::string_view text) {
  if (text.empty()) return kNone;
  const auto [it, added] = index_.try_emplace(std::string(text), static_cast<uint32_t>(size()));
  if (added) texts_.push_back(it->first);
  return it->second;
}

}  // namespace slicelab
