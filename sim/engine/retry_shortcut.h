// The engine's retry shortcut as a PreFilter: a pod that failed is retried only on the nodes
// that gained free resources since, because filters are monotone and every other node still fails.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/placement/plugins.h"

namespace slicelab {

class RetryShortcut final : public PreFilter {
 public:
  explicit RetryShortcut(size_t pods) : tried_at_(pods, kNever) {}

  std::string_view name() const override { return "retry-shortcut"; }
  // Narrows `nodes` (all nodes, ascending) to those freed since the pod's last failed attempt
  // when they are few; returns false when none was freed (the attempt would fail again).
  bool pre_filter(const SchedulingCycle& cycle, std::vector<NodeId>& nodes) override;

  // Called by the engine when a node gains free resources, and when a pod's attempt fails.
  void node_freed(NodeId n) { freed_log_.push_back(n); }
  void attempt_failed(uint32_t pod) { tried_at_[pod] = static_cast<uint32_t>(freed_log_.size()); }
  // False when nothing was freed since the pod last failed: the attempt is not worth a cycle.
  bool worth_trying(uint32_t pod) const {
    return tried_at_[pod] == kNever || tried_at_[pod] != freed_log_.size();
  }

 private:
  static constexpr uint32_t kNever = UINT32_MAX;
  std::vector<NodeId> freed_log_;   // nodes that gained free resources, in order
  std::vector<uint32_t> tried_at_;  // per pod: freed_log_ length at its last failed attempt
  std::vector<NodeId> freed_;       // scratch
};

}  // namespace slicelab
