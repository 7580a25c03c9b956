// MIG as placement plugins: PreFilter (nodes with enough GPUs holding a free instance of the
// pod's profile), PostFilter (dynamic MIG: a second pass that may re-partition), Reserve.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "sim/modes/mig/mig_state.h"
#include "sim/placement/plugins.h"

namespace slicelab {

class MigPlugin final : public PreFilter, public PostFilter, public ReservePlugin {
 public:
  // `state` outlives the plugin; `pods` is the run's pod count.
  MigPlugin(MigState& state, size_t pods) : state_(state), held_(pods) {}

  std::string_view name() const override { return "mig"; }

  // Pass 0 keeps the nodes with req.gpu_count GPUs that have a free instance of the pod's
  // profile now; pass 1 (dynamic MIG) also counts GPUs a re-partitioning could give one.
  // CPU-only pods pass untouched.
  bool pre_filter(const SchedulingCycle& cycle, std::vector<NodeId>& nodes) override;
  // Explain: which of the node's GPUs cannot give the pod an instance, and why (the layout).
  Rejection why_rejected(const SchedulingCycle& cycle, NodeId node) const override;
  // Dynamic MIG asks for pass 1 when pass 0 found no node for a GPU pod.
  bool post_filter(const SchedulingCycle& cycle) override;
  // Takes the pod's instances on the node (fullest GPUs first; on pass 1 re-partitioning where
  // needed), writes the GPUs holding them into `gpus` and the instance's claim into
  // cycle.req.claim_units. Refuses, holding nothing, when the node has too few such GPUs.
  bool reserve(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> gpus) override;
  // Gives the instances back and restores the request's claim; does nothing if the pod holds
  // none (idempotent). Call it after the cluster unbound the pod: the claim changes.
  void unreserve(const SchedulingCycle& cycle, NodeId node, std::span<const GpuId> gpus) override;

  // The pod ended: gives its instances back (its request keeps the instance's claim).
  void release(uint32_t pod, std::span<const GpuId> gpus);
  // Seconds until the pod's GPUs are re-partitioned, as its last reserve left them.
  double start_delay_s(uint32_t pod) const { return held_[pod].delay_s; }
  bool holds(uint32_t pod) const { return held_[pod].held; }

 private:
  struct Held {
    double delay_s = 0;
    int claim_before = 0;  // the request's claim before reserve rewrote it
    bool held = false;
  };

  MigState& state_;
  std::vector<Held> held_;  // per pod
};

}  // namespace slicelab
