#include "sim/modes/hami/hami_node_index.h"

#include <algorithm>
#include <bit>

namespace slicelab {

void HamiNodeIndex::resize(size_t nodes) {
  nodes_ = nodes;
  leaves_ = 1;
  while (leaves_ < std::max<size_t>(nodes, 1)) leaves_ *= 2;
  tree_.assign(2 * leaves_, Range{});
  class_of_.assign(nodes, -1);
  classes_.assign(kMaxClasses, IdleClass{0, std::vector<uint64_t>((nodes + 63) / 64, 0)});
}

void HamiNodeIndex::leave_class(NodeId n) {
  const int c = class_of_[n];
  if (c < 0) return;
  IdleClass& k = classes_[static_cast<size_t>(c)];
  k.bits[n / 64] &= ~(uint64_t{1} << (n % 64));
  --k.count;
  class_of_[n] = -1;
}

void HamiNodeIndex::set(NodeId n, const HamiLeaf& leaf) {
  leave_class(n);
  put(n, {leaf.key, -leaf.key, leaf.cpu_free, leaf.memory_free, leaf.max_free_units, leaf.idle_gpus,
          leaf.open, leaf.idle, leaf.max_free_mem, leaf.max_free_cores, leaf.models});
}

void HamiNodeIndex::set_idle(NodeId n, int c) {
  if (class_of_[n] == c) return;
  leave_class(n);
  IdleClass& k = classes_[static_cast<size_t>(c)];
  k.bits[n / 64] |= uint64_t{1} << (n % 64);
  ++k.count;
  class_of_[n] = c;
  put(n, Range{});
}

NodeId HamiNodeIndex::idle_member(int c) const {
  const IdleClass& k = classes_[static_cast<size_t>(c)];
  for (size_t w = 0; w < k.bits.size(); ++w)
    if (k.bits[w] != 0) return static_cast<NodeId>(w * 64 + std::countr_zero(k.bits[w]));
  return UINT32_MAX;
}

void HamiNodeIndex::put(NodeId n, const Range& r) {
  size_t v = leaves_ + n;
  tree_[v] = r;
  for (v /= 2; v >= 1; v /= 2) pull(v);
}

void HamiNodeIndex::pull(size_t v) {
  const Range& a = tree_[2 * v];
  const Range& b = tree_[2 * v + 1];
  Range& r = tree_[v];
  r.max_key = std::max(a.max_key, b.max_key);
  r.neg_min_key = std::max(a.neg_min_key, b.neg_min_key);
  r.cpu = std::max(a.cpu, b.cpu);
  r.memory = std::max(a.memory, b.memory);
  r.units = std::max(a.units, b.units);
  r.idle_gpus = std::max(a.idle_gpus, b.idle_gpus);
  r.open = std::max(a.open, b.open);
  r.idle = std::max(a.idle, b.idle);
  r.max_free_mem = std::max(a.max_free_mem, b.max_free_mem);
  r.max_free_cores = std::max(a.max_free_cores, b.max_free_cores);
  r.models = a.models | b.models;
}

}  // namespace slicelab
