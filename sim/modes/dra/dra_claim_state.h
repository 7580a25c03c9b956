// A DRA run's claims: which claims each pod holds, the structured allocator that allocates
// them, and where their devices sit among the cluster's GPUs (for binding and the rate model).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/modes/dra/dra_claim_record.h"
#include "sim/modes/dra/dra_settings.h"
#include "sim/modes/dra/structured_allocator.h"
#include "workloads/pod_spec.h"

namespace slicelab {

class DraClaimState {
 public:
  // Capacity units of one GPU in a DRA run: a pod's units are its devices' share of it.
  static constexpr int kUnitsPerGpu = 1000;

  // Throws InputError when a slice's devices cannot be placed on the cluster's GPUs (an
  // unknown node, more physical GPUs than the node has, devices reaching all nodes) or a Pod
  // names a claim or template that does not exist.
  DraClaimState(const DraSettings& settings, const ClusterState& cluster,
                std::span<const PodSpec> pods);

  bool has_claims(uint32_t pod) const { return claim_begin_[pod] != claim_begin_[pod + 1]; }
  // Filter: the pod's claims can all be allocated for the node now. A pod whose claims are all
  // unallocated gets the answer kept for pods of the same claim specs on this node, while the
  // node's devices are unchanged (DraStructuredAllocator::node_version): the search would give
  // the same one.
  bool fits(uint32_t pod, NodeId node);
  // Reserve: allocates the claims, writes the GPUs their devices sit on into `gpus` (as many
  // as the pod asks for, else it fails) and sets `claim_units` to the pod's share of each.
  bool reserve(uint32_t pod, NodeId node, double now_s, std::span<GpuId> gpus, int& claim_units);
  // Unreserve (binding failed) and the pod's end: its claims lose a consumer.
  void release(uint32_t pod);
  // Why the pod's claims fit no node of an empty cluster, or nullopt.
  std::optional<std::string> never_fits(uint32_t pod);

  // The share of GPU g's SMs the pod may use (a MIG partition's, an MPS thread percentage), 1
  // otherwise; and the memory of its partition (MiB), -1 where the GPU is not partitioned.
  double sm_cap(uint32_t pod, GpuId g) const;
  int64_t partition_memory_mib(uint32_t pod, GpuId g) const;

  const std::vector<DraClaimRecord>& records() const { return records_; }

 private:
  struct DeviceInfo {
    GpuId gpu = UINT32_MAX;
    double sm_fraction = 1.0;  // < 1 for a partition (consumes counters)
    int64_t memory_mib = -1;   // partitions only
  };
  struct PodDevice {
    GpuId gpu = 0;
    double sm_cap = 1.0;
    int64_t partition_mib = -1;
  };

  std::span<const DraClaimId> claims_of(uint32_t pod) const {
    return {claim_ids_.data() + claim_begin_[pod], claim_ids_.data() + claim_begin_[pod + 1]};
  }
  void map_devices(const ClusterState& cluster);
  void add_pod_claims(std::span<const PodSpec> pods);
  double thread_share(const DraAllocationResult& a) const;

  const DraSettings& settings_;
  const ClusterState& cluster_;
  std::span<const PodSpec> pods_;
  DraStructuredAllocator live_;
  DraStructuredAllocator probe_;  // never allocates: asks whether an empty cluster could
  std::vector<std::vector<DeviceInfo>> devices_;                   // per slice, per device
  std::vector<std::unique_ptr<DraResourceClaimSpec>> made_specs_;  // for workload pods
  std::vector<uint32_t> claim_begin_;                              // pods + 1
  std::vector<DraClaimId> claim_ids_;
  std::vector<std::vector<PodDevice>> pod_devices_;
  std::vector<int32_t> open_record_;  // per claim: its record while allocated, else -1
  std::vector<uint8_t> reserved_;     // per pod
  std::vector<DraClaimRecord> records_;
  std::map<std::vector<const DraResourceClaimSpec*>, std::optional<std::string>> never_cache_;
  // fits()' answers: per pod the index of its claims' specs in order (kNoMemo: not kept), and
  // per such index and node the answer and the node_version it was found at.
  static constexpr uint32_t kNoMemo = UINT32_MAX;
  struct FitMemo {
    uint64_t version = 0;
    int8_t fits = -1;  // -1: not asked yet
  };
  std::vector<uint32_t> fit_key_;
  std::vector<FitMemo> fit_memo_;
};

}  // namespace slicelab
