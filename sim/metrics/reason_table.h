// The texts of why pods failed or were never placed, each held once and named by a small index:
// a million pods share a few dozen reasons, so an outcome keeps 4 bytes instead of a string.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace slicelab {

class ReasonTable {
 public:
  // Index 0 is the empty reason (a pod that completed, or is still running or pending).
  static constexpr uint32_t kNone = 0;

  ReasonTable() : texts_{std::string()} {}

  // The index of `text`, added on first use; equal texts get equal indices.
  uint32_t add(std::string_view text);
  const std::string& operator[](uint32_t index) const { return texts_[index]; }
  size_t size() const { return texts_.size(); }

 private:
  std::vector<std::string> texts_;
  std::unordered_map<std::string, uint32_t> index_;
};

}  // namespace slicelab
