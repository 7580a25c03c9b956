// kube-scheduler's DefaultPreemption as the engine runs it: which running pods of a node must go
// for a pending pod to fit there, and which node's victims to take when several nodes would do.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "sim/cluster_state.h"

namespace slicelab {

// engine.preemption: whether a pending pod may evict lower-priority pods (a pod's
// preemptionPolicy: PreemptLowerPriority, or Never for every pod).
enum class PreemptionPolicy : uint8_t { kNever, kLowerPriority };
std::string_view to_string(PreemptionPolicy p);
std::optional<PreemptionPolicy> preemption_policy_from_name(std::string_view name);

// A running pod that preemption may evict: its index in the run, priority and start.
struct PreemptionVictim {
  uint32_t pod = 0;
  int priority = 0;
  double start_s = 0;
};

// One node where evicting `victims` lets the pending pod fit. Victims are ordered as
// kube-scheduler returns them: the most important first (higher priority, then earlier start).
struct PreemptionCandidate {
  NodeId node = 0;
  std::vector<PreemptionVictim> victims;
};

// pkg/scheduler/framework/preemption's MoreImportantPod: a higher priority first, then the one
// that started earlier.
bool more_important(const PreemptionVictim& a, const PreemptionVictim& b);

// selectVictimsOnNode (pkg/scheduler/framework/plugins/defaultpreemption): every pod below
// `priority` is removed; if the pending pod then does not fit, the node is no candidate (false).
// Else the removed pods are added back one by one, the most important first, and each that
// leaves the pending pod fitting stays (is reprieved); the others are the victims, in `victims`.
// `set_present(victim, present)` removes or restores one pod's resources on the node, and
// `fits()` asks whether the pending pod fits the node as it is now; on return every pod is
// present again. `pods_on_node` is reordered. PodDisruptionBudgets are not modelled (none is
// violated).
template <typename SetPresent, typename Fits>
bool select_victims(std::vector<PreemptionVictim>& pods_on_node, int priority,
                    SetPresent&& set_present, Fits&& fits, std::vector<PreemptionVictim>& victims) {
  victims.clear();
  std::erase_if(pods_on_node, [&](const PreemptionVictim& v) { return v.priority >= priority; });
  if (pods_on_node.empty()) return false;
  for (const PreemptionVictim& v : pods_on_node) set_present(v, false);
  if (!fits()) {
    for (const PreemptionVictim& v : pods_on_node) set_present(v, true);
    return false;
  }
  std::stable_sort(pods_on_node.begin(), pods_on_node.end(), more_important);
  for (const PreemptionVictim& v : pods_on_node) {
    set_present(v, true);
    if (!fits()) {
      set_present(v, false);
      victims.push_back(v);
    }
  }
  for (const PreemptionVictim& v : victims) set_present(v, true);
  return true;
}

// pickOneNodeForPreemption (pkg/scheduler/framework/preemption/preemption.go), its criteria in
// order: the fewest PodDisruptionBudget violations (none here); the lowest highest-priority
// victim; the lowest sum of priorities, each taken as priority + 2^31 (so fewer victims first);
// the fewest victims; the latest start among the victims of the highest priority; the first
// candidate. Returns an index into `candidates` (not empty).
size_t pick_one_node(std::span<const PreemptionCandidate> candidates);

// How many candidates kube-scheduler gathers before it picks (GetOffsetAndNumCandidates):
// minCandidateNodesPercentage (10%) of the nodes, at least minCandidateNodesAbsolute (100), at
// most all of them.
size_t candidates_wanted(size_t nodes);

}  // namespace slicelab
