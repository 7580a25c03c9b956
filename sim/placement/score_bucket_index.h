// The score-bucket index: for a lone scorer whose score follows the node's state, the nodes that
// pass the filters bucketed by their score, per request shape the run repeats (fgd, dot-product).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/placement/journal_follower.h"
#include "sim/placement/mode_index.h"
#include "sim/placement/plugins.h"

namespace slicelab {

// Contract: an index, not a decision. For a scorer whose score of a node for a request is an
// integer in [kMinNodeScore, kMaxNodeScore] that depends only on the request and the node's
// dynamic state (it can change only when ClusterState::version(n) does), top() lists exactly the
// nodes that pass `feasible` with the highest score among them: the full pass's maxima, as the
// scorer itself scores them. It keeps one slot per request shape (every PodRequest field) for the
// last kSlots shapes that came at least twice; a slot replays the journal's changes when asked,
// so an unchanged node costs nothing. Memory: about 9 + 2 * kScores / 8 bytes per node per slot
// (the lists hold at most twice their members, plus 16).
class ScoreBucketIndex {
 public:
  static constexpr size_t kSlots = 32;       // shapes indexed at once; the least recently used goes
  static constexpr size_t kProbation = 128;  // shapes seen once, remembered until their second
  static constexpr int kScores = static_cast<int>(kMaxNodeScore - kMinNodeScore) + 1;
  static constexpr size_t kListedTies = 64;  // larger ties come as a set of bits

  // What the index asks of the policy, for the pod at hand: its filters and its scorer.
  class Asks {
   public:
    virtual bool feasible(NodeId n) const = 0;
    virtual void score(std::span<const NodeId> nodes, std::span<int64_t> out) const = 0;

   protected:
    ~Asks() = default;
  };

  // Forgets the cluster and every shape.
  void reset();

  // False when `req`'s shape has no slot yet (its first sighting since it last had one): the
  // caller takes the full pass. Else `ties` (any order) and `sets` (disjoint from them) hold the
  // nodes that pass the filters with the highest score, both empty when none passes. `asks`
  // answers for `req` on `cluster` as it stands. A score outside [0, 100] (a scorer that broke
  // its contract, or a node bound past its capacity) turns the index off for the run: false
  // from then on, so the full pass decides.
  bool top(const ClusterState& cluster, const PodRequest& req, const Asks& asks,
           std::vector<NodeId>& ties, std::vector<TiedSet>& sets);

  // How many slots were built from scratch and how many queries they answered (for tests).
  uint64_t rebuilds() const { return rebuilds_; }
  uint64_t answered() const { return answered_; }

 private:
  // A node's move between buckets writes its score, two counts, the two buckets' member words
  // and the new bucket's listed word (and at times a list's end): the lists drop a node that
  // left lazily (an entry counts only while the node's score is the list's bucket; a list is
  // compacted when its stale entries outnumber its members), which at 10,000 nodes halved the
  // cache lines a move touches (docs/performance.md, "Fifth round").
  struct Slot {
    PodRequest key;
    uint64_t used = 0;  // the query clock at its last use
    JournalFollower follower;
    std::vector<uint8_t> score;  // per node: its bucket, kFails when it fails the filters
    std::array<uint32_t, kScores> count{};  // per bucket: its members
    // Per bucket: its members and stale entries, each node at most once (`listed`).
    std::array<std::vector<NodeId>, kScores> members;
    std::vector<uint64_t> bits;    // kScores x words: bit n of bucket b's words when n is in it
    std::vector<uint64_t> listed;  // kScores x words: bit n when n has an entry in members[b]
    size_t words = 0;
    std::array<uint64_t, 2> nonempty{};  // bit s: count[s] > 0
  };
  static uint64_t& member_word(Slot& s, int b, NodeId n) {
    return s.bits[static_cast<size_t>(b) * s.words + n / 64];
  }
  static uint64_t& listed_word(Slot& s, int b, NodeId n) {
    return s.listed[static_cast<size_t>(b) * s.words + n / 64];
  }
  static void compact(Slot& s, int b);
  static constexpr int kFails = 255;
  // The slot for `req`, or null when it earns none yet.
  Slot* slot_for(const PodRequest& req);
  bool rebuild(Slot& s, const ClusterState& cluster, const Asks& asks);
  // Files each of `nodes` under its score (kFails: fails the filters); false on a score out of
  // range.
  bool refile(Slot& s, std::span<const NodeId> nodes, const Asks& asks);
  static void place(Slot& s, NodeId n, int bucket);

  std::vector<Slot> slots_;
  std::vector<PodRequest> probation_;  // oldest first, at most kProbation
  uint64_t clock_ = 0;
  uint64_t rebuilds_ = 0, answered_ = 0;
  bool off_ = false;  // a score out of range was seen: the index is off until reset()
  std::vector<NodeId> all_, batch_;
  std::vector<int64_t> raw_;
};

}  // namespace slicelab
