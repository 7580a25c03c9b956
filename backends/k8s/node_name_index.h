// Node name -> node id for the extender's view: a flat open-addressing table over one buffer of
// the names, so that a request's thousands of lookups hash each name once and allocate nothing.
//
// Contracts: assign() takes the names in id order (id = position); a name given twice keeps its
// first id (as unordered_map::emplace). find() takes any bytes (a std::string_view into a request
// body, a std::string) and answers the id, or nullopt for a name the index lacks. The index owns
// copies of the names: what assign() was given may change or go away afterwards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab::k8s {

class NodeNameIndex {
 public:
  void assign(const std::vector<std::string_view>& names);
  std::optional<uint32_t> find(std::string_view name) const;
  bool contains(std::string_view name) const { return find(name).has_value(); }
  std::size_t size() const { return offsets_.empty() ? 0 : offsets_.size() - 1; }

 private:
  static uint64_t hash(std::string_view name);
  std::string_view name(uint32_t id) const {
    return std::string_view(text_).substr(offsets_[id], offsets_[id + 1] - offsets_[id]);
  }
  struct Slot {
    uint32_t tag = 0;  // the hash's high half, to skip most compares
    uint32_t id = 0;   // id + 1; 0 = empty
  };
  std::string text_;                  // every name, back to back
  std::vector<std::size_t> offsets_;  // name i is text_[offsets_[i], offsets_[i + 1])
  std::vector<Slot> slots_;           // a power of two, at most half full
};

}  // namespace slicelab::k8s
