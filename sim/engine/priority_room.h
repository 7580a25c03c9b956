// What the running pods of each node would free, summed by priority: preemption's bound on a
// node (can removing every pod below a priority make room enough?) without visiting its pods.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/cluster_state.h"
#include "workloads/pod_spec.h"

namespace slicelab {

// Contract: prepare() learns the run's distinct priorities; with more than kMaxLevels of them
// the table is off (enabled() false) and callers visit the pods instead. add() and remove()
// keep, per node and priority, the sum of the rooms of the pods counted there; below(n, k) is
// the sum over the k lowest priorities.
class PriorityRoom {
 public:
  static constexpr size_t kMaxLevels = 16;
  struct Room {
    int64_t cpu_milli = 0, memory_mib = 0, units = 0;
  };

  void prepare(std::span<const PodSpec> pods, size_t nodes) {
    levels_.clear();
    for (const PodSpec& p : pods) {
      if (std::find(levels_.begin(), levels_.end(), p.priority) != levels_.end()) continue;
      levels_.push_back(p.priority);
      if (levels_.size() > kMaxLevels) {
        levels_.clear();
        room_.clear();
        return;
      }
    }
    std::sort(levels_.begin(), levels_.end());
    room_.assign(nodes * levels_.size(), Room{});
  }
  bool enabled() const { return !levels_.empty(); }
  // How many of the run's priorities are below `priority`.
  size_t levels_below(int priority) const {
    return static_cast<size_t>(std::lower_bound(levels_.begin(), levels_.end(), priority) -
                               levels_.begin());
  }
  void add(NodeId n, int priority, const Room& r) { change(n, priority, r, 1); }
  void remove(NodeId n, int priority, const Room& r) { change(n, priority, r, -1); }
  Room below(NodeId n, size_t k) const {
    Room sum;
    const Room* row = room_.data() + static_cast<size_t>(n) * levels_.size();
    for (size_t l = 0; l < k; ++l) {
      sum.cpu_milli += row[l].cpu_milli;
      sum.memory_mib += row[l].memory_mib;
      sum.units += row[l].units;
    }
    return sum;
  }

 private:
  void change(NodeId n, int priority, const Room& r, int64_t sign) {
    if (!enabled()) return;
    Room& at = room_[static_cast<size_t>(n) * levels_.size() + levels_below(priority)];
    at.cpu_milli += sign * r.cpu_milli;
    at.memory_mib += sign * r.memory_mib;
    at.units += sign * r.units;
  }
  std::vector<int> levels_;  // the run's priorities, ascending
  std::vector<Room> room_;   // node-major: levels_.size() per node
};

}  // namespace slicelab
