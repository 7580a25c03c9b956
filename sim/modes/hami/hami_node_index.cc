#include "sim/modes/hami/hami_node_index.h"

#include <algorithm>
#include <bit>

namespace slicelab {

void HamiNodeIndex::resize(size_t nodes) {
  nodes_ = nodes;
  leaves_ = 1;
  while (leaves_ < std::max<size_t>(nodes, 1)) leaves_ *= 2;
  tree_.assign(2 * leaves_, Range{});
  used_ = 0;
  at_.assign(leaves_, 0);
  leaf_of_.assign(nodes, kNowhere);
  range_of_.assign(nodes, Range{});
  changed_.clear();
  changed_at_.assign(nodes, kNowhere);
  moved_.clear();
  order_.clear();
  order_.reserve(nodes);
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

void HamiNodeIndex::leave_tree(NodeId n) {
  if (leaf_of_[n] == kNowhere) return;
  size_t v = leaves_ + leaf_of_[n];
  leaf_of_[n] = kNowhere;
  tree_[v] = Range{};
  // Where a range comes out as it was, so do all above it: most removals change a few levels.
  for (v /= 2; v >= 1; v /= 2) {
    const Range was = tree_[v];
    pull(v);
    if (tree_[v] == was) break;
  }
}

void HamiNodeIndex::leave_changed(NodeId n) {
  const uint32_t i = changed_at_[n];
  if (i == kNowhere) return;
  changed_[i] = changed_.back();
  changed_at_[changed_[i].node] = i;
  changed_.pop_back();
  changed_at_[n] = kNowhere;
}

void HamiNodeIndex::set(NodeId n, const HamiLeaf& leaf) {
  leave_class(n);
  leave_tree(n);
  Range& r = range_of_[n];
  r.max_key = leaf.key;
  r.neg_min_key = -leaf.key;
  r.models = leaf.models;
  r.cpu = narrow(leaf.cpu_free);
  r.memory = narrow(leaf.memory_free);
  r.units = narrow(leaf.max_free_units);
  r.idle_gpus = narrow(leaf.idle_gpus);
  r.open = narrow(leaf.open);
  r.idle = narrow(leaf.idle);
  r.max_free_mem = narrow(leaf.max_free_mem);
  r.max_free_cores = narrow(leaf.max_free_cores);
  if (changed_at_[n] == kNowhere) {
    changed_at_[n] = static_cast<uint32_t>(changed_.size());
    changed_.push_back({n, range_of_[n]});
  } else {
    changed_[changed_at_[n]].range = range_of_[n];
  }
  // A longer list costs every search; a reorder costs a pass over the nodes.
  if (changed_.size() > 8 + nodes_ / 32) reorder();
}

void HamiNodeIndex::set_idle(NodeId n, int c) {
  if (class_of_[n] == c) return;
  leave_class(n);
  leave_tree(n);
  leave_changed(n);
  IdleClass& k = classes_[static_cast<size_t>(c)];
  k.bits[n / 64] |= uint64_t{1} << (n % 64);
  ++k.count;
  class_of_[n] = c;
}

void HamiNodeIndex::reorder() {
  // The nodes still on their leaves are in score order already: merge the changed ones in.
  // The scratch lists are members: a reorder comes every few hundred binds, and allocated
  // nothing per call since the first.
  const auto before = [&](NodeId a, NodeId b) {
    const int64_t ka = range_of_[a].max_key, kb = range_of_[b].max_key;
    return ka != kb ? ka < kb : a < b;
  };
  moved_.clear();
  for (const Changed& c : changed_) {
    moved_.push_back(c.node);
    changed_at_[c.node] = kNowhere;
  }
  changed_.clear();
  std::sort(moved_.begin(), moved_.end(), before);
  order_.clear();
  auto next_moved = moved_.begin();
  // Leaves from used_ on have held no node since the last reorder.
  for (size_t p = 0; p < used_; ++p) {
    const NodeId n = at_[p];
    if (n >= nodes_ || leaf_of_[n] != p) continue;  // left the tree
    while (next_moved != moved_.end() && before(*next_moved, n)) order_.push_back(*next_moved++);
    order_.push_back(n);
  }
  order_.insert(order_.end(), next_moved, moved_.end());
  for (size_t p = 0; p < order_.size(); ++p) {
    at_[p] = order_[p];
    leaf_of_[order_[p]] = static_cast<uint32_t>(p);
    tree_[leaves_ + p] = range_of_[order_[p]];
  }
  // Only the leaves that held or hold a node, and the ranges above them: the rest is padding
  // up to a power of two (6,384 of 16,384 leaves at 10,000 nodes), empty since resize().
  const size_t end = std::max(used_, order_.size());
  std::fill(tree_.begin() + static_cast<std::ptrdiff_t>(leaves_ + order_.size()),
            tree_.begin() + static_cast<std::ptrdiff_t>(leaves_ + end), Range{});
  used_ = order_.size();
  for (size_t first = leaves_ / 2, span = end; first >= 1; first /= 2) {
    span = (span + 1) / 2;
    for (size_t v = first; v < first + span; ++v) pull(v);
  }
}

NodeId HamiNodeIndex::idle_member(int c) const {
  const IdleClass& k = classes_[static_cast<size_t>(c)];
  for (size_t w = 0; w < k.bits.size(); ++w)
    if (k.bits[w] != 0) return static_cast<NodeId>(w * 64 + std::countr_zero(k.bits[w]));
  return UINT32_MAX;
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
