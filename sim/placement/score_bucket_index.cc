#include "sim/placement/score_bucket_index.h"

#include <algorithm>
#include <bit>

namespace slicelab {

void ScoreBucketIndex::reset() {
  off_ = false;
  slots_.clear();
  probation_.clear();
}

ScoreBucketIndex::Slot* ScoreBucketIndex::slot_for(const PodRequest& req) {
  ++clock_;
  for (Slot& s : slots_) {
    if (s.key == req) {
      s.used = clock_;
      return &s;
    }
  }
  // A shape earns a slot at its second sighting: a run of ever-new shapes (a trace of many
  // distinct requests) would otherwise pay a slot's build, a full pass and more, for every pod.
  const auto seen = std::find(probation_.begin(), probation_.end(), req);
  if (seen == probation_.end()) {
    if (probation_.size() == kProbation) probation_.erase(probation_.begin());
    probation_.push_back(req);
    return nullptr;
  }
  probation_.erase(seen);
  Slot* slot = nullptr;
  if (slots_.size() < kSlots) {
    slot = &slots_.emplace_back();
  } else {
    slot = &*std::min_element(slots_.begin(), slots_.end(),
                              [](const Slot& a, const Slot& b) { return a.used < b.used; });
    slot->follower.reset();
  }
  slot->key = req;
  slot->used = clock_;
  return slot;
}

void ScoreBucketIndex::place(Slot& s, NodeId n, int bucket) {
  const int old = s.score[n];
  if (old == bucket) return;
  const uint64_t bit = uint64_t{1} << (n % 64);
  if (old != kFails) {
    member_word(s, old, n) &= ~bit;
    if (--s.count[static_cast<size_t>(old)] == 0)
      s.nonempty[static_cast<size_t>(old) / 64] &= ~(uint64_t{1} << (old % 64));
  }
  s.score[n] = static_cast<uint8_t>(bucket);
  if (bucket == kFails) return;
  member_word(s, bucket, n) |= bit;
  ++s.count[static_cast<size_t>(bucket)];
  s.nonempty[static_cast<size_t>(bucket) / 64] |= uint64_t{1} << (bucket % 64);
  uint64_t& listed = listed_word(s, bucket, n);
  if ((listed & bit) != 0) return;  // its old entry there counts again
  listed |= bit;
  auto& list = s.members[static_cast<size_t>(bucket)];
  list.push_back(n);
  if (list.size() > 2 * static_cast<size_t>(s.count[static_cast<size_t>(bucket)]) + 16)
    compact(s, bucket);
}

void ScoreBucketIndex::compact(Slot& s, int b) {
  auto& list = s.members[static_cast<size_t>(b)];
  size_t kept = 0;
  for (const NodeId n : list) {
    if (s.score[n] == b) {
      list[kept++] = n;
    } else {
      listed_word(s, b, n) &= ~(uint64_t{1} << (n % 64));
    }
  }
  list.resize(kept);
}

bool ScoreBucketIndex::refile(Slot& s, std::span<const NodeId> nodes, const Asks& asks) {
  batch_.clear();
  for (const NodeId n : nodes) {
    if (asks.feasible(n)) {
      batch_.push_back(n);
    } else {
      place(s, n, kFails);
    }
  }
  if (batch_.empty()) return true;
  raw_.resize(batch_.size());
  asks.score(batch_, raw_);
  for (size_t i = 0; i < batch_.size(); ++i) {
    const int64_t v = raw_[i];
    if (v < kMinNodeScore || v > kMaxNodeScore) return false;
    place(s, batch_[i], static_cast<int>(v - kMinNodeScore));
  }
  return true;
}

bool ScoreBucketIndex::rebuild(Slot& s, const ClusterState& cluster, const Asks& asks) {
  ++rebuilds_;
  const size_t n = cluster.node_count();
  s.words = (n + 63) / 64;
  s.score.assign(n, kFails);
  s.count = {};
  for (auto& m : s.members) m.clear();
  s.bits.assign(static_cast<size_t>(kScores) * s.words, 0);
  s.listed.assign(static_cast<size_t>(kScores) * s.words, 0);
  s.nonempty = {};
  if (all_.size() != n) {
    all_.resize(n);
    for (size_t i = 0; i < n; ++i) all_[i] = static_cast<NodeId>(i);
  }
  return refile(s, all_, asks);
}

bool ScoreBucketIndex::top(const ClusterState& cluster, const PodRequest& req, const Asks& asks,
                           std::vector<NodeId>& ties, std::vector<TiedSet>& sets) {
  if (off_) return false;
  Slot* slot = slot_for(req);
  if (slot == nullptr) return false;
  Slot& s = *slot;
  // Replaying a change costs about what rebuilding costs per node.
  bool in_range = true;
  s.follower.sync(
      cluster, cluster.node_count() / 2, [&] { in_range = rebuild(s, cluster, asks); },
      [&](std::span<const NodeId> changed) { in_range = refile(s, changed, asks); });
  if (!in_range) {
    slots_.clear();
    off_ = true;
    return false;
  }
  ++answered_;
  int best = -1;
  if (s.nonempty[1] != 0) {
    best = 64 + 63 - std::countl_zero(s.nonempty[1]);
  } else if (s.nonempty[0] != 0) {
    best = 63 - std::countl_zero(s.nonempty[0]);
  }
  if (best < 0) return true;
  const uint32_t count = s.count[static_cast<size_t>(best)];
  if (count <= kListedTies) {
    // Members that left since the last push are still listed: compacted here too, so that a
    // bucket that once held every node costs its few members, not a scan of its old list.
    if (s.members[static_cast<size_t>(best)].size() > 2 * static_cast<size_t>(count) + 16)
      compact(s, best);
    for (const NodeId n : s.members[static_cast<size_t>(best)])
      if (s.score[n] == best) ties.push_back(n);
    return true;
  }
  const std::span<const uint64_t> bits(s.bits.data() + static_cast<size_t>(best) * s.words,
                                       s.words);
  size_t w = 0;
  while (bits[w] == 0) ++w;  // the bucket is not empty
  sets.push_back(TiedSet{
      bits, count, static_cast<NodeId>(w * 64 + static_cast<size_t>(std::countr_zero(bits[w])))});
  return true;
}

}  // namespace slicelab
