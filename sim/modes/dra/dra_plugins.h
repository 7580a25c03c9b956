// kube-scheduler's DynamicResources plugin: Filter keeps the nodes where all of the pod's
// ResourceClaims can be allocated, Reserve allocates them and puts the pod on their GPUs.
#pragma once

#include "sim/modes/dra/dra_claim_state.h"
#include "sim/placement/plugins.h"

namespace slicelab {

class DraClaimsPlugin final : public Filter, public ReservePlugin {
 public:
  explicit DraClaimsPlugin(DraClaimState& state) : state_(state) {}

  std::string_view name() const override { return "DynamicResources"; }
  void filter(const SchedulingCycle& cycle, std::vector<NodeId>& candidates) const override;
  // Allocates the claims (status.allocation), replaces the picked GPUs by those their devices
  // sit on and the pod's capacity units by its devices' share of them.
  bool reserve(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> gpus) override;
  void unreserve(const SchedulingCycle& cycle, NodeId node, std::span<const GpuId> gpus) override;

 private:
  DraClaimState& state_;
};

}  // namespace slicelab
