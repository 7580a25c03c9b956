#include "sim/modes/mig/mig_plugin.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace slicelab {
namespace {

int gpus_for(const MigState& state, const SchedulingCycle& cycle, NodeId n) {
  return cycle.pass == 0 ? state.usable_gpus(n, cycle.pod, cycle.now_s)
                         : state.usable_or_reconfigurable_gpus(n, cycle.pod, cycle.now_s);
}

}  // namespace

bool MigPlugin::pre_filter(const SchedulingCycle& cycle, std::vector<NodeId>& nodes) {
  const int need = cycle.req.gpu_count;
  if (need == 0) return true;
  std::erase_if(nodes, [&](NodeId n) { return gpus_for(state_, cycle, n) < need; });
  return !nodes.empty();
}

Rejection MigPlugin::why_rejected(const SchedulingCycle& cycle, NodeId node) const {
  const bool reconfigure = cycle.pass > 0;
  const ClusterState& cluster = cycle.cluster;
  std::set<std::string> causes;
  std::vector<std::string> gpus;
  std::string profile;
  int usable = 0;
  for (GpuId g = cluster.first_gpu(node); g < cluster.first_gpu(node + 1); ++g) {
    if (profile.empty()) profile = state_.profile_name(cycle.pod, g);
    const std::string why = state_.misfit(g, cycle.pod, cycle.now_s, reconfigure);
    usable += why.empty() ? 1 : 0;
    if (!why.empty()) causes.insert(why);
    gpus.push_back(fmt::format("GPU {} [{}]: {}", g - cluster.first_gpu(node),
                               state_.layout_text(g), why.empty() ? "fits" : why));
  }
  return {fmt::format("too few GPUs with a free {} instance{}: {}",
                      profile.empty() ? "fitting" : profile,
                      reconfigure ? " even after re-partitioning" : "", fmt::join(causes, "; ")),
          fmt::format("{} of {} needed; {}", usable, cycle.req.gpu_count, fmt::join(gpus, "; "))};
}

bool MigPlugin::post_filter(const SchedulingCycle& cycle) {
  return state_.dynamic() && cycle.pass == 0 && cycle.req.gpu_count > 0;
}

bool MigPlugin::reserve(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> gpus) {
  const uint32_t p = cycle.pod;
  const int need = cycle.req.gpu_count;
  if (need == 0) return true;
  // Checked before choose(), which re-partitions as it goes: a refusal leaves nothing changed.
  if (gpus_for(state_, cycle, node) < need) return false;
  const auto out = gpus.first(static_cast<size_t>(need));
  const int redone = state_.choose(node, p, cycle.now_s, cycle.pass > 0, out);
  Held& h = held_[p];
  h.delay_s = redone > 0 ? state_.reconfigure_s() : 0.0;
  h.claim_before = cycle.req.claim_units;
  h.held = true;
  // The pod's real claim is its instance's compute slices (same model on all its GPUs).
  cycle.req.claim_units = state_.claim_units(out[0], p);
  for (const GpuId g : out) state_.occupy(g, p);
  return true;
}

void MigPlugin::unreserve(const SchedulingCycle& cycle, NodeId /*node*/,
                          std::span<const GpuId> gpus) {
  const uint32_t p = cycle.pod;
  if (!held_[p].held) return;
  cycle.req.claim_units = held_[p].claim_before;
  release(p, gpus);
}

void MigPlugin::release(uint32_t pod, std::span<const GpuId> gpus) {
  Held& h = held_[pod];
  if (!h.held) return;
  for (const GpuId g : gpus) state_.release(g, pod);
  h = Held{};
}

}  // namespace slicelab
