#include "backends/k8s/node_name_index.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace slicelab::k8s {

// Eight bytes at a time (the tail as one short word), each word multiplied in, then a final mix:
// names differ mostly in their last bytes ("node-1234"), which the mix spreads over the slot bits.
uint64_t NodeNameIndex::hash(std::string_view name) {
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;
  uint64_t h = 0xcbf29ce484222325ull ^ (name.size() * kMul);
  const char* p = name.data();
  std::size_t left = name.size();
  for (; left >= 8; p += 8, left -= 8) {
    uint64_t word = 0;
    std::memcpy(&word, p, 8);
    h = (h ^ word) * kMul;
    h ^= h >> 32;
  }
  if (left > 0) {
    uint64_t word = 0;
    std::memcpy(&word, p, left);
    h = (h ^ word) * kMul;
    h ^= h >> 32;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

void NodeNameIndex::assign(const std::vector<std::string_view>& names) {
  text_.clear();
  offsets_.assign(1, 0);
  std::size_t bytes = 0;
  for (const std::string_view n : names) bytes += n.size();
  text_.reserve(bytes);
  offsets_.reserve(names.size() + 1);
  for (const std::string_view n : names) {
    text_ += n;
    offsets_.push_back(text_.size());
  }
  slots_.assign(std::bit_ceil(std::max<std::size_t>(2 * names.size(), 8)), Slot{});
  const std::size_t mask = slots_.size() - 1;
  for (uint32_t id = 0; id < names.size(); ++id) {
    const uint64_t h = hash(names[id]);
    const auto tag = static_cast<uint32_t>(h >> 32);
    for (std::size_t s = h & mask;; s = (s + 1) & mask) {
      Slot& slot = slots_[s];
      if (slot.id == 0) {
        slot = {tag, id + 1};
        break;
      }
      if (slot.tag == tag && name(slot.id - 1) == names[id]) break;  // the first id stays
    }
  }
}

std::optional<uint32_t> NodeNameIndex::find(std::string_view key) const {
  if (slots_.empty()) return std::nullopt;
  const uint64_t h = hash(key);
  const auto tag = static_cast<uint32_t>(h >> 32);
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t s = h & mask;; s = (s + 1) & mask) {
    const Slot& slot = slots_[s];
    if (slot.id == 0) return std::nullopt;
    if (slot.tag == tag && name(slot.id - 1) == key) return slot.id - 1;
  }
}

}  // namespace slicelab::k8s
