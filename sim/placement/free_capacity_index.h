// The free-capacity index: the cluster's nodes bucketed by how much CPU and GPU they have free,
// and a max-tree over node order, kept in step with ClusterState through its change journal.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/placement/journal_follower.h"

namespace slicelab {

// Contract: an index, not a decision. It only says which nodes cannot matter (their free
// capacity rules them out, or their bucket cannot reach a score); the caller decides on the
// nodes it visits with the filters' and scorers' own tests. Buckets are unordered inside.
class FreeCapacityIndex {
 public:
  static constexpr int kBuckets = 2048;

  // Forgets the cluster: the next sync() rebuilds.
  void reset() { follower_.reset(); }
  // Brings the index up to the cluster's state: replays the journal's changes since the last
  // sync, or rebuilds (another cluster, or the journal no longer holds what was missed).
  void sync(const ClusterState& cluster);

  // The scorers' free share before placement: cpu_free/max_cpu*0.5 + free_units/max_gpu*0.5,
  // each term present when its divisor is (as free_after_placement). A pod's free share after
  // placement on n is key(n) - pod_key(pod), up to rounding.
  double key(NodeId n) const { return node_key(cpu_[n], units_[n]); }
  double pod_key(const PodRequest& req) const {
    return node_key(req.cpu_milli, static_cast<int64_t>(req.gpu_count) * req.claim_units);
  }

  // Bucket b holds the nodes whose computed key is in [lower(b), upper(b)); the first and the
  // last bucket are open at their outer end (a node never exceeds its capacity, but a node
  // bound outside the filters could).
  static int bucket_of(double key);
  static double lower(int b) {
    return b == 0 ? -std::numeric_limits<double>::infinity() : static_cast<double>(b) / kBuckets;
  }
  static double upper(int b) {
    return b == kBuckets - 1 ? std::numeric_limits<double>::infinity()
                             : static_cast<double>(b + 1) / kBuckets;
  }
  // Inside a bucket, nodes are split by level: the share of a GPU their largest free GPU share
  // (max_free_units) reaches, in kLevels - 1 steps; a node that fits a claim of u units on one
  // GPU is at level >= min_level(u). Unordered inside.
  static constexpr int kLevels = 9;
  int min_level(int64_t claim_units) const { return level_of(claim_units); }
  std::span<const NodeId> bucket(int b, int level) const {
    return buckets_[static_cast<size_t>(b * kLevels + level)];
  }
  // The first bucket at or after b (up: towards higher keys; down: lower) that holds a node;
  // -1 or kBuckets when none: empty buckets cost a bit, not a visit.
  int next_bucket(int b, bool up) const;

  // Idle classes: an idle node (all its CPU, memory and GPUs free) is kept out of its bucket's
  // lists, in a bitset of its class (same CPU, memory, GPU model, GPU count and GPU memory), so
  // that a thousand idle nodes, which every filter and scorer treats alike, cost one visit. The
  // first kMaxClasses profiles seen have a class; idle nodes of any other stay in the lists.
  // The nodes of bucket b are its lists' and the members of classes_at(b).
  static constexpr int kMaxClasses = 64;
  std::span<const int> classes_at(int b) const { return bucket_classes_[static_cast<size_t>(b)]; }
  uint32_t idle_count(int c) const { return classes_[static_cast<size_t>(c)].count; }
  // The lowest-index member of class c; idle_count(c) > 0.
  NodeId idle_member(int c) const;
  // Bit n % 64 of word n / 64 is set when node n is an idle member of class c.
  std::span<const uint64_t> idle_bits(int c) const { return classes_[static_cast<size_t>(c)].bits; }

  // The lowest-index node for which `exact(n)` holds, among the nodes whose free CPU, memory and
  // largest free GPU share reach the given minimums (necessary conditions that prune whole
  // ranges of nodes; kNoMinimum: no condition); exact is asked in node order. UINT32_MAX when
  // none.
  static constexpr int64_t kNoMinimum = std::numeric_limits<int64_t>::min() + 1;
  template <typename Exact>
  NodeId first_where(int64_t cpu, int64_t memory, int64_t gpu_units, int64_t idle_gpus,
                     Exact exact) const {
    const Need need{cpu, memory, gpu_units, idle_gpus};
    return first_from(1, need, exact);
  }

 private:
  double node_key(int64_t cpu, int64_t units) const {
    double k = 0;
    if (max_cpu_ > 0) k += static_cast<double>(cpu) / max_cpu_ * 0.5;
    if (max_gpu_ > 0) k += static_cast<double>(units) / max_gpu_ * 0.5;
    return k;
  }
  void rebuild(const ClusterState& cluster);
  void update(const ClusterState& cluster, NodeId n);
  void set_tree(size_t leaf, const ClusterState& cluster, NodeId n);
  void pull(size_t v);
  int level_of(int64_t units) const {
    return cap_units_ > 0 ? static_cast<int>(units * (kLevels - 1) / cap_units_) : 0;
  }
  void insert(NodeId n, int at, bool idle);
  void remove(NodeId n);
  bool idle(const ClusterState& cluster, NodeId n) const {
    return class_of_[n] >= 0 && cluster.cpu_free(n) == cluster.cpu_capacity(n) &&
           cluster.memory_free(n) == cluster.memory_capacity(n) &&
           cluster.idle_gpus(n) == cluster.gpus_on(n);
  }
  void classify(const ClusterState& cluster);
  void count(int at, int delta);  // a node enters (1) or leaves (-1) cell `at`

  struct Need {
    int64_t cpu, mem, gpu, idle;
  };
  template <typename Exact>
  NodeId first_from(size_t v, const Need& need, Exact& exact) const {
    if (cpu_max_[v] < need.cpu || mem_max_[v] < need.mem || gpu_max_[v] < need.gpu ||
        idle_max_[v] < need.idle)
      return UINT32_MAX;
    if (v >= leaves_) {
      const auto n = static_cast<NodeId>(v - leaves_);
      return exact(n) ? n : UINT32_MAX;
    }
    const NodeId left = first_from(2 * v, need, exact);
    return left != UINT32_MAX ? left : first_from(2 * v + 1, need, exact);
  }

  JournalFollower follower_;
  double max_cpu_ = 0, max_gpu_ = 0;
  int cap_units_ = 0;
  std::vector<int64_t> cpu_, units_;  // per node, as of the last sync
  std::vector<int> where_;            // per node: its bucket * kLevels + level
  std::vector<uint32_t> slot_;        // per node: its place there
  std::vector<uint32_t> count_;       // per bucket: its nodes, all levels
  std::vector<uint64_t> occupied_;    // per bucket: one bit, count_ > 0
  std::vector<std::vector<NodeId>> buckets_;
  struct IdleClass {
    uint32_t count = 0;
    mutable size_t first_word = 0;  // no member below this word
    std::vector<uint64_t> bits;
  };
  std::vector<int> class_of_;      // per node: its class, or -1
  std::vector<uint8_t> in_class_;  // per node: kept in its class's bitset, not in a list
  std::vector<IdleClass> classes_;
  std::vector<std::vector<int>> bucket_classes_;  // per bucket: the classes whose idle key it holds
  // The max-tree: leaves_ leaves (a power of two), node v's children 2v and 2v+1; leaves past
  // the last node hold INT64_MIN, below every minimum (kNoMinimum included).
  size_t leaves_ = 1;
  std::vector<int64_t> cpu_max_, mem_max_, gpu_max_, idle_max_;
};

}  // namespace slicelab
