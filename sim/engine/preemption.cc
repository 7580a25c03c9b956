#include "sim/engine/preemption.h"

#include <algorithm>
#include <limits>

namespace slicelab {

std::string_view to_string(PreemptionPolicy p) {
  return p == PreemptionPolicy::kNever ? "never" : "lower-priority";
}

std::optional<PreemptionPolicy> preemption_policy_from_name(std::string_view name) {
  for (const PreemptionPolicy p : {PreemptionPolicy::kNever, PreemptionPolicy::kLowerPriority})
    if (to_string(p) == name) return p;
  return std::nullopt;
}

bool more_important(const PreemptionVictim& a, const PreemptionVictim& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  return a.start_s < b.start_s;
}

namespace {

// GetEarliestPodStartTime: the earliest start among the victims of the highest priority.
double earliest_start_of_highest(const std::vector<PreemptionVictim>& victims) {
  int highest = std::numeric_limits<int>::min();
  for (const PreemptionVictim& v : victims) highest = std::max(highest, v.priority);
  double earliest = std::numeric_limits<double>::infinity();
  for (const PreemptionVictim& v : victims)
    if (v.priority == highest) earliest = std::min(earliest, v.start_s);
  return earliest;
}

}  // namespace

size_t pick_one_node(std::span<const PreemptionCandidate> candidates) {
  std::vector<size_t> keep(candidates.size());
  for (size_t i = 0; i < keep.size(); ++i) keep[i] = i;
  // Keeps the candidates whose `key` is least (a stable filter, as the scheduler's loops).
  const auto narrow = [&](auto key) {
    if (keep.size() <= 1) return;
    auto best = key(candidates[keep[0]]);
    for (const size_t i : keep) best = std::min(best, key(candidates[i]));
    std::erase_if(keep, [&](size_t i) { return key(candidates[i]) != best; });
  };
  narrow([](const PreemptionCandidate& c) {
    int highest = std::numeric_limits<int>::min();
    for (const PreemptionVictim& v : c.victims) highest = std::max(highest, v.priority);
    return static_cast<int64_t>(highest);
  });
  narrow([](const PreemptionCandidate& c) {
    int64_t sum = 0;
    for (const PreemptionVictim& v : c.victims)
      sum += static_cast<int64_t>(v.priority) + int64_t{std::numeric_limits<int32_t>::max()} + 1;
    return sum;
  });
  narrow([](const PreemptionCandidate& c) { return static_cast<int64_t>(c.victims.size()); });
  // The latest earliest start: least of its negation.
  narrow([](const PreemptionCandidate& c) { return -earliest_start_of_highest(c.victims); });
  return keep.front();
}

size_t candidates_wanted(size_t nodes) {
  const size_t tenth = nodes / 10;
  return std::min(nodes, std::max<size_t>(tenth, 100));
}

}  // namespace slicelab
