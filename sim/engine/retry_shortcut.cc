#include "sim/engine/retry_shortcut.h"

#include <algorithm>

namespace slicelab {

void RetryShortcut::node_freed(NodeId n) {
  ++freed_count_;
  log_.push_back(n);
  // Drop what no narrowing can read, in one go once the log is twice what is kept: amortised
  // O(1) per node freed, and the log stays small however long the run.
  if (log_.size() > 2 * keep_ + 64)
    log_.erase(log_.begin(), log_.end() - static_cast<std::ptrdiff_t>(keep_));
}

void RetryShortcut::freed_since(size_t since, std::vector<NodeId>& out) const {
  out.assign(log_.end() - static_cast<std::ptrdiff_t>(since), log_.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

bool RetryShortcut::pre_filter_every(const SchedulingCycle& cycle, std::vector<NodeId>& nodes) {
  // on_every_node said kNeedsList: the pod failed before, and fewer than a quarter of the nodes
  // were freed since; what pre_filter would narrow every node to.
  if (on_every_node(cycle) != Verdict::kNeedsList) return PreFilter::pre_filter_every(cycle, nodes);
  freed_since(freed_count_ - tried_at_[cycle.pod], nodes);
  return !nodes.empty();
}

PreFilter::Verdict RetryShortcut::on_every_node(const SchedulingCycle& cycle) const {
  // pre_filter's first three answers, for an input of every node.
  const uint32_t at = tried_at_[cycle.pod];
  if (at == kNever) return Verdict::kKeepsAll;
  const size_t since = freed_count_ - at;
  if (since == 0) return Verdict::kRejects;
  if (since >= cycle.cluster.node_count() / 4) return Verdict::kKeepsAll;
  return Verdict::kNeedsList;
}

bool RetryShortcut::pre_filter(const SchedulingCycle& cycle, std::vector<NodeId>& nodes) {
  const uint32_t at = tried_at_[cycle.pod];
  if (at == kNever) return true;
  const size_t since = freed_count_ - at;
  if (since == 0) return false;
  // Few freed nodes: scan only them. Many: the full list costs less than sorting the log. Fewer
  // than a quarter of the nodes (the input is at most all of them) are all still in the log.
  if (since >= nodes.size() / 4) return true;
  freed_since(since, freed_);
  if (nodes.size() == cycle.cluster.node_count()) {
    nodes.swap(freed_);
  } else {  // an earlier pre-filter narrowed the set already: keep what both allow
    std::erase_if(nodes,
                  [&](NodeId n) { return !std::binary_search(freed_.begin(), freed_.end(), n); });
  }
  return !nodes.empty();
}

}  // namespace slicelab
