// The MIG instances of every GPU during a run: which exist, which pod holds each, which GPUs
// are being re-partitioned, and the time-weighted capacity stranded in unusable free instances.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/modes/mig/mig_layout.h"
#include "sim/modes/mig/mig_settings.h"
#include "sim/pod_request_view.h"
#include "workloads/pod_spec.h"

namespace slicelab {

class MigState {
 public:
  // Instance slots per GPU in the per-GPU arrays: an instance holds at least one of the GPU's
  // 8 memory slots, so no GPU holds more.
  static constexpr int kInstanceSlotsPerGpu = 8;
  // Profile slots per GPU model in the per-model arrays: a MIG table lists at most 8 profiles.
  static constexpr int kProfileSlotsPerModel = 8;
  static constexpr int8_t kWhole = -1;  // a GPU without MIG: one instance, the whole card
  static constexpr int8_t kNone = -2;   // the pod has no profile on that GPU model
  static constexpr uint32_t kFree = UINT32_MAX;

  // Lays out every GPU: the settings' configuration where an entry names it (MIG on), else
  // empty under dynamic MIG, else (and on GPU models without MIG) one whole-card instance.
  MigState(const ClusterState& cluster, const GpuCatalog& catalog, const MigSettings& settings,
           std::span<const PodSpec> pods, PodRequestView requests);

  // The profile a pod takes on a GPU model: its mig_profile, or else the smallest profile
  // (fewest compute slices, then memory slots, never +me) with
  // compute_slices * 1000 / GPU slices >= gpu_milli and memory >= gpu_memory_mib.
  static int8_t profile_for(const MigTable& table, const PodSpec& pod);

  // Why the pod can never run in this cluster under these settings, or nullopt.
  std::optional<std::string> never_fits(uint32_t pod) const;

  // GPUs of node n that could host pod p now (a free instance of its profile, not being
  // re-partitioned), and those a re-partitioning could give one.
  int usable_gpus(NodeId n, uint32_t p, double now) const;
  int usable_or_reconfigurable_gpus(NodeId n, uint32_t p, double now) const;
  // Explain: why GPU g cannot give pod p an instance now (`reconfigure`: nor by re-partitioning),
  // as a category ("the layout has no 3g.40gb instance"); empty when it can.
  std::string misfit(GpuId g, uint32_t p, double now, bool reconfigure) const;
  // "3g.40gb@0 (held), 4g.40gb@4 (free)"; "MIG off" for a GPU without MIG.
  std::string layout_text(GpuId g) const;
  // The pod's profile on GPU g by name ("whole GPU" without MIG; "" when it has none).
  std::string profile_name(uint32_t p, GpuId g) const;
  // Chooses req.gpu_count GPUs of n into out: usable ones first, fullest first (binpack), then
  // (when allowed) re-partitions GPUs, busiest first, and returns how many it re-partitioned.
  int choose(NodeId n, uint32_t p, double now, bool reconfigure, std::span<GpuId> out);

  // Gives pod p the free instance of its profile with the lowest start on GPU g.
  void occupy(GpuId g, uint32_t p);
  void release(GpuId g, uint32_t p);
  // The pod's instance on g: SM share of the whole GPU, memory, capacity units.
  double sm_share(GpuId g, uint32_t p) const;
  int64_t instance_memory_mib(GpuId g, uint32_t p) const;
  int claim_units(GpuId g, uint32_t p) const;
  std::string instance_name(GpuId g, uint32_t p) const;
  const std::vector<MigPlacement> layout(GpuId g) const;

  // The pod no longer waits (placed, or given up on): its profiles stop counting as wanted.
  void pod_left_queue(uint32_t p);
  // GPU capacity (in GPUs) in free instances whose profile no waiting or future pod takes.
  double stranded_gpus() const;

  bool dynamic() const { return settings_.dynamic; }
  double reconfigure_s() const { return settings_.reconfigure_s; }
  size_t reconfigurations() const { return reconfigurations_; }
  double reconfiguration_gpu_s() const { return reconfiguration_gpu_s_; }

 private:
  bool has_profile(GpuId g, int8_t q) const;
  bool fits_now(GpuId g, uint32_t p, double now) const;
  bool can_reconfigure(GpuId g, uint32_t p, double now) const;
  void reconfigure(GpuId g, uint32_t p, double now);
  int8_t pod_profile(uint32_t p, GpuId g) const;
  size_t slot(GpuId g, uint32_t p) const;
  void count_free(GpuId g, size_t k, int sign);

  const ClusterState& cluster_;
  const MigSettings& settings_;
  std::span<const PodSpec> pods_;
  PodRequestView req_;
  size_t models_;
  std::vector<const MigTable*> table_;  // per GPU model; null: no MIG
  std::vector<int64_t> model_memory_;   // per GPU model
  std::vector<uint8_t> mig_on_;         // per GPU
  std::vector<int8_t> inst_profile_;    // per GPU x kInstanceSlotsPerGpu
  std::vector<uint8_t> inst_start_;
  std::vector<uint32_t> inst_pod_;
  std::vector<uint8_t> inst_count_;
  std::vector<int> used_slices_;     // per GPU: compute slices held by pods
  std::vector<double> busy_until_;   // per GPU: end of its re-partitioning
  std::vector<int8_t> pod_profile_;  // per pod x model
  // Per model x profile: pods waiting or yet to arrive that take it, and free instances of it
  // (as a share of one GPU).
  std::vector<uint32_t> wanted_;
  std::vector<double> free_gpus_;
  std::vector<uint8_t> waiting_;  // per pod
  size_t reconfigurations_ = 0;
  double reconfiguration_gpu_s_ = 0;
  std::vector<MigPlacement> kept_;  // scratch
};

}  // namespace slicelab
