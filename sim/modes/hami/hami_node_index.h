// HAMi's node index: the nodes HAMi scores best among those that pass the filters, found
// without visiting every node (docs/placement.md, "The HAMi index").
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "sim/cluster_state.h"

namespace slicelab {

// One node as the index keeps it (the caller computes it: HamiRun::index_leaf).
struct HamiLeaf {
  int64_t key = 0;  // hami_score_key of the node score: the order HAMi compares
  int64_t cpu_free = 0, memory_free = 0;
  int64_t max_free_units = 0, idle_gpus = 0;  // ClusterState's
  int64_t open = 0, idle = 0;                 // HamiNodeSummary's
  int64_t max_free_mem = 0, max_free_cores = 0;
  uint64_t models = 0;  // the bit of the node's GPU model
};

// What a pod needs at least of one node: each a necessary condition of the filters (kNone: no
// condition). `gpu`: the pod asks for GPUs, so HAMi's and the model conditions apply.
struct HamiNeed {
  static constexpr int64_t kNone = std::numeric_limits<int64_t>::min() + 1;
  int64_t cpu = kNone, memory = kNone, max_free_units = kNone, idle_gpus = kNone;
  bool gpu = false;
  uint64_t model_mask = ~uint64_t{0};
  int64_t open = kNone, idle = kNone, max_free_mem = kNone, max_free_cores = kNone;
};

// A tree whose leaves are the nodes in score order, each range holding its highest and lowest
// score and the most of each free resource HAMi's and the policy's filters test, so that the
// search skips whole ranges; nodes changed since the order was made wait in a short list, and
// idle nodes are kept apart, by class, since the filters and the score treat a class's idle
// nodes alike.
// Contract: an index, not a decision. best() asks `exact` (the filters' own test) of every tree
// node it lists and of no node whose range it proved cannot pass or cannot reach the best score;
// the result is exactly the tree's nodes passing `exact` whose reach (key under `highest`, else
// -key) is the highest and at least `top`. Idle class members are not in the tree: the caller
// tests a class's lowest member for all of them (HamiRun::top_nodes).
class HamiNodeIndex {
 public:
  static constexpr int kMaxClasses = 64;
  // Room for `nodes` nodes, none in the tree or a class yet (each must be set before best()).
  void resize(size_t nodes);
  size_t size() const { return nodes_; }
  // Node n is in the tree with these values, or an idle member of class `c` (< kMaxClasses).
  void set(NodeId n, const HamiLeaf& leaf);
  void set_idle(NodeId n, int c);

  uint32_t idle_count(int c) const { return classes_[static_cast<size_t>(c)].count; }
  NodeId idle_member(int c) const;  // the lowest; idle_count(c) > 0
  std::span<const uint64_t> idle_bits(int c) const { return classes_[static_cast<size_t>(c)].bits; }

  // The changed nodes' list first, then the tree depth first, into the child that can reach
  // higher first, so that a good `top` early prunes the other (leaves in score order make a
  // range's nodes alike in score, and its maxima close to one node's). `top` in: a reach
  // already found elsewhere (an idle class; ties with it are listed); out: the best reach,
  // `ties` the nodes at it.
  template <typename Exact>
  void best(const HamiNeed& wide_need, bool highest, Exact& exact, int64_t& top,
            std::vector<NodeId>& ties) const {
    const Need need = narrow(wide_need);
    ties.clear();
    for (const auto& c : changed_) {
      const int64_t reach = highest ? c.range.max_key : c.range.neg_min_key;
      if (reach < top || !may_hold(c.range, need) || !exact(c.node)) continue;
      if (reach > top) {
        top = reach;
        ties.clear();
      }
      ties.push_back(c.node);
    }
    visit(1, need, highest, exact, top, ties);
  }

 private:
  // The resources as 32-bit values (56 bytes a range, not 88: the tree of a 10,000-node cluster
  // is 1.8 MB, not 2.9). Values are clamped into [kEmpty + 1, INT32_MAX] and so are the needs;
  // clamping is monotone, so a clamped range below a clamped need is below it unclamped too,
  // and a range is never refused that could hold the pod. kEmpty marks an empty range, below
  // every need.
  static constexpr int32_t kEmpty = std::numeric_limits<int32_t>::min();
  static int32_t narrow(int64_t v) {
    return static_cast<int32_t>(
        std::clamp<int64_t>(v, int64_t{kEmpty} + 1, std::numeric_limits<int32_t>::max()));
  }
  struct Need {
    int32_t cpu, memory, max_free_units, idle_gpus, open, idle, max_free_mem, max_free_cores;
    uint64_t model_mask;
    bool gpu;
  };
  static Need narrow(const HamiNeed& n) {
    return {narrow(n.cpu),
            narrow(n.memory),
            narrow(n.max_free_units),
            narrow(n.idle_gpus),
            narrow(n.open),
            narrow(n.idle),
            narrow(n.max_free_mem),
            narrow(n.max_free_cores),
            n.model_mask,
            n.gpu};
  }
  struct Range {
    int64_t max_key = std::numeric_limits<int64_t>::min();
    int64_t neg_min_key = std::numeric_limits<int64_t>::min();  // -(lowest key)
    uint64_t models = 0;
    int32_t cpu = kEmpty, memory = kEmpty, units = kEmpty, idle_gpus = kEmpty;
    int32_t open = kEmpty, idle = kEmpty, max_free_mem = kEmpty, max_free_cores = kEmpty;
    bool operator==(const Range&) const = default;
  };
  static_assert(sizeof(Range) == 56);
  static bool may_hold(const Range& r, const Need& need) {
    if (r.cpu < need.cpu || r.memory < need.memory || r.units < need.max_free_units ||
        r.idle_gpus < need.idle_gpus)
      return false;
    if (!need.gpu) return true;
    return (r.models & need.model_mask) != 0 && r.open >= need.open && r.idle >= need.idle &&
           r.max_free_mem >= need.max_free_mem && r.max_free_cores >= need.max_free_cores;
  }
  void pull(size_t v);
  void leave_class(NodeId n);
  void leave_tree(NodeId n);     // its leaf becomes Range{}
  void leave_changed(NodeId n);  // off the changed list
  void reorder();                // the changed nodes into the tree, all leaves in score order

  template <typename Exact>
  void visit(size_t v, const Need& need, bool highest, Exact& exact, int64_t& top,
             std::vector<NodeId>& ties) const {
    const Range& r = tree_[v];
    const int64_t reach = highest ? r.max_key : r.neg_min_key;
    if (reach < top || !may_hold(r, need)) return;
    if (v >= leaves_) {
      const NodeId n = at_[v - leaves_];
      if (!exact(n)) return;
      if (reach > top) {
        top = reach;
        ties.clear();
      }
      ties.push_back(n);
      return;
    }
    const Range& left = tree_[2 * v];
    const Range& right = tree_[2 * v + 1];
    const bool right_first =
        highest ? right.max_key > left.max_key : right.neg_min_key > left.neg_min_key;
    visit(2 * v + (right_first ? 1 : 0), need, highest, exact, top, ties);
    visit(2 * v + (right_first ? 0 : 1), need, highest, exact, top, ties);
  }
  struct IdleClass {
    uint32_t count = 0;
    std::vector<uint64_t> bits;
  };

  struct Changed {
    NodeId node;
    Range range;
  };
  static constexpr uint32_t kNowhere = UINT32_MAX;

  size_t nodes_ = 0;
  size_t leaves_ = 1;  // a power of two; node v's children are 2v and 2v + 1
  size_t used_ = 0;    // leaves that hold a node, or held one, since the last reorder()
  // A leaf whose node left (changed, idle) and padding keep Range{}: below every need.
  std::vector<Range> tree_;
  std::vector<NodeId> at_;            // per leaf: its node, in score order as of the last reorder()
  std::vector<uint32_t> leaf_of_;     // per node: its leaf, or kNowhere
  std::vector<Range> range_of_;       // per node: its values as of the last set()
  std::vector<Changed> changed_;      // nodes set since the last reorder(), not idle
  std::vector<uint32_t> changed_at_;  // per node: its place in changed_, or kNowhere
  std::vector<int> class_of_;         // per node: the class it is an idle member of, or -1
  std::vector<IdleClass> classes_;
  std::vector<NodeId> moved_, order_;  // reorder()'s scratch
};

}  // namespace slicelab
