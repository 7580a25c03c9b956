// The engine's retry shortcut as a PreFilter: a pod that failed is retried only on the nodes
// that gained free resources since, because filters are monotone and every other node still fails.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/placement/plugins.h"

namespace slicelab {

// Contract: nodes freed are counted for the whole run, but only the latest quarter of the
// cluster's node count is kept: a pod with more freed since its failed attempt is tried on every
// node anyway (a full scan costs less than sorting that many), so older entries are never read.
class RetryShortcut final : public PreFilter {
 public:
  RetryShortcut(size_t pods, size_t nodes) : keep_(nodes / 4), tried_at_(pods, kNever) {}

  std::string_view name() const override { return "retry-shortcut"; }
  // Narrows `nodes` (all nodes, ascending) to those freed since the pod's last failed attempt
  // when they are few; returns false when none was freed (the attempt would fail again).
  bool pre_filter(const SchedulingCycle& cycle, std::vector<NodeId>& nodes) override;
  Verdict on_every_node(const SchedulingCycle& cycle) const override;
  // The freed nodes themselves, sorted: no list of every node to narrow.
  bool pre_filter_every(const SchedulingCycle& cycle, std::vector<NodeId>& nodes) override;
  // It drops only nodes that still fail as they did at the pod's last attempt.
  bool shortcut() const override { return true; }

  // Called by the engine when a node gains free resources, and when a pod's attempt fails.
  void node_freed(NodeId n);
  void attempt_failed(uint32_t pod) { tried_at_[pod] = freed_count_; }
  // False when nothing was freed since the pod last failed: the attempt is not worth a cycle.
  bool worth_trying(uint32_t pod) const {
    return tried_at_[pod] == kNever || tried_at_[pod] != freed_count_;
  }
  // The nodes freed since the pod's last failed attempt, sorted, into `out`; false (and `out`
  // untouched) when that could be any node: it never failed, or a quarter of the nodes or more
  // were freed since. Preemption narrows its search with it.
  bool freed_since_failure(uint32_t pod, size_t nodes, std::vector<NodeId>& out) const {
    return freed_since_count(tried_at_[pod], nodes, out);
  }
  // The same for the nodes freed since freed_count() was `count` (kNever: any node).
  bool freed_since_count(uint32_t count, size_t nodes, std::vector<NodeId>& out) const {
    if (count == kNever || freed_count_ - count >= nodes / 4) return false;
    freed_since(freed_count_ - count, out);
    return true;
  }
  // Nodes freed so far: a group's attempt (a gang's) is worth repeating only once it moved.
  uint32_t freed_count() const { return freed_count_; }
  // Frees the marks (4 bytes per pod of the run) once no pod is placed any more.
  void forget_pods() { std::vector<uint32_t>().swap(tried_at_); }
  // Entries of the log held now (at most twice the kept quarter of the nodes).
  size_t log_size() const { return log_.size(); }

 private:
  static constexpr uint32_t kNever = UINT32_MAX;
  size_t keep_;               // log entries a narrowing can need: a quarter of the nodes
  uint32_t freed_count_ = 0;  // nodes freed so far in the run (with repeats)
  // The latest of them, in order (the last is number freed_count_).
  std::vector<NodeId> log_;
  std::vector<uint32_t> tried_at_;  // per pod: freed_count_ at its last failed attempt
  std::vector<NodeId> freed_;       // scratch
  // The nodes freed since the pod's attempt `since` frees ago (fewer than a quarter of the
  // nodes: all in the log), sorted and unique, into `out`.
  void freed_since(size_t since, std::vector<NodeId>& out) const;
};

}  // namespace slicelab
