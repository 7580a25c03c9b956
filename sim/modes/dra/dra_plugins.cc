#include "sim/modes/dra/dra_plugins.h"

#include <algorithm>

namespace slicelab {

void DraClaimsPlugin::filter(const SchedulingCycle& cycle, std::vector<NodeId>& candidates) const {
  if (!state_.has_claims(cycle.pod)) return;
  std::erase_if(candidates, [&](NodeId n) { return !state_.fits(cycle.pod, n); });
}

bool DraClaimsPlugin::reserve(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> gpus) {
  if (!state_.has_claims(cycle.pod)) return true;
  int units = 0;
  if (!state_.reserve(cycle.pod, node, cycle.now_s, gpus, units)) return false;
  cycle.req.claim_units = units;
  return true;
}

void DraClaimsPlugin::unreserve(const SchedulingCycle& cycle, NodeId /*node*/,
                                std::span<const GpuId> /*gpus*/) {
  state_.release(cycle.pod);
}

}  // namespace slicelab
