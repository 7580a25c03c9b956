#include "sim/engine/retry_shortcut.h"

#include <algorithm>

namespace slicelab {

bool RetryShortcut::pre_filter(const SchedulingCycle& cycle, std::vector<NodeId>& nodes) {
  const uint32_t at = tried_at_[cycle.pod];
  if (at == kNever) return true;
  const size_t since = freed_log_.size() - at;
  if (since == 0) return false;
  // Few freed nodes: scan only them. Many: the full list costs less than sorting the log.
  if (since >= nodes.size() / 4) return true;
  freed_.assign(freed_log_.begin() + at, freed_log_.end());
  std::sort(freed_.begin(), freed_.end());
  freed_.erase(std::unique(freed_.begin(), freed_.end()), freed_.end());
  if (nodes.size() == cycle.cluster.node_count()) {
    nodes.swap(freed_);
  } else {  // an earlier pre-filter narrowed the set already: keep what both allow
    std::erase_if(nodes,
                  [&](NodeId n) { return !std::binary_search(freed_.begin(), freed_.end(), n); });
  }
  return !nodes.empty();
}

}  // namespace slicelab
