// HAMi's state for one run behind the engine's sharing seam: each GPU's used slots and the
// memory its tenants really use, its scheduler's per-GPU filter (Fit), and the Reserve step
// that resolves memory percentages on the chosen GPUs and picks them by the GPU policy.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "sim/modes/hami/hami_fit.h"
#include "sim/modes/hami/hami_node_index.h"
#include "sim/modes/hami/hami_node_summary.h"
#include "sim/modes/hami/hami_plugins.h"
#include "sim/modes/hami/hami_settings.h"
#include "sim/placement/plugins.h"
#include "sim/sharing/sharing_run.h"

namespace slicelab {

class HamiRun final : public SharingRun, public Filter, public ReservePlugin {
 public:
  // `settings` outlives the run (the HamiShare mode holds it); total_cores = Totalcore per GPU.
  HamiRun(const RunSetup& setup, const HamiSettings& settings, int total_cores);

  std::string_view name() const override { return "hami"; }
  RunPlugins plugins() override { return {{}, {this}, {}, {this}}; }
  // A memory percentage is not part of PodRequest, so equal requests may differ in it.
  bool equal_requests_fit_alike() const override { return !any_percent_; }
  void release(uint32_t pod, std::span<const GpuId> gpus) override;
  void prefetch_release(uint32_t pod, NodeId n, std::span<const GpuId> gpus) const override;
  std::optional<MemoryInUse> overcommitted_memory(GpuId g, uint32_t pod) const override;

  // Filter: nodes of an allowed model with req.gpu_count GPUs that each pass HAMi's Fit. A node
  // its summary refuses is not tested GPU by GPU (the same nodes pass).
  void filter(const SchedulingCycle& cycle, std::vector<NodeId>& candidates) const override;
  // Explain: HAMi's reasons (Fit's, per GPU) for a node filter() rejects.
  Rejection why_rejected(const SchedulingCycle& cycle, NodeId node) const override;
  // Reserve: keeps the device picker's GPUs when each fits (the HAMi pickers' always do), else
  // picks by the scheduler's GPU policy; writes the memory request resolved on those GPUs into
  // cycle.req.gpu_memory_mib (HAMi-core's limit) and takes their slots.
  bool reserve(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> gpus) override;
  void unreserve(const SchedulingCycle& cycle, NodeId node, std::span<const GpuId> gpus) override;
  // HAMi's node scorers and device pickers (hami, hami-binpack, hami-spread), which the
  // placement registry names and this run holds.
  const Scorer* named_scorer(std::string_view name) const override;
  const DevicePicker* named_picker(std::string_view name) const override;
  // The node index behind each named scorer (HamiTopNodes; docs/placement.md, "Indexes").
  const ModeIndex* named_index(std::string_view scorer) const override;

  // Whether node n passes filter() for the cycle's pod (`a` its ask).
  bool passes(const PodRequest& req, const HamiAsk& a, NodeId n) const;
  // The nodes that pass filter() and `policy_passes` (whose necessary conditions `need` holds)
  // with the highest node score under binpack, the lowest under spread (idle nodes tied at the
  // top as their class's set); brings the node index
  // up to date first (the cluster's change journal and the slots taken or given back here).
  void top_nodes(const SchedulingCycle& cycle, HamiPolicy policy, const PolicyNeed& need,
                 const std::function<bool(NodeId)>& policy_passes, std::vector<NodeId>& ties,
                 std::vector<TiedSet>& sets) const;

  // HAMi's node score of n before the pod is added (hami_node_score).
  float node_score(NodeId n) const;
  // The node's summary as of now: rebuilt when the node was bound or unbound
  // (ClusterState::version) or a slot taken or given back here since it was built.
  const HamiNodeSummary& summary(NodeId n) const;
  // The first req.gpu_count GPUs of the node that fit, in HAMi's device order under `policy`:
  // binpack the highest GPU score first, spread the lowest; equal scores the higher index first
  // (HAMi sorts stably and Fit walks the list from its end). False if too few fit.
  bool pick(const SchedulingCycle& cycle, NodeId node, HamiPolicy policy,
            std::span<GpuId> out) const;

  const HamiSettings& settings() const { return settings_; }
  HamiDevice device(NodeId n) const { return {settings_.device_split_count, admitted_[n], cores_}; }
  HamiUsage usage(GpuId g) const;
  HamiAsk ask(uint32_t pod, const PodRequest& req) const;
  int slots_used(GpuId g) const { return used_[g]; }
  int64_t memory_in_use(GpuId g) const { return in_use_[g]; }

 private:
  bool fits(GpuId g, const HamiDevice& dev, const HamiAsk& ask) const {
    return hami_gpu_fit(dev, usage(g), ask) == HamiMisfit::kFits;
  }
  int64_t actual_mib(uint32_t pod, NodeId n) const;
  HamiLeaf index_leaf(NodeId n) const;
  // No CPU, memory, GPU share, slot or GPU memory in use: every filter and the score (0) then
  // read only the node's class (CPU, memory, model, GPU count and memory).
  bool idle(NodeId n) const;
  void index_node(NodeId n) const;
  void sync_index() const;
  void slots_changed(NodeId n);

  const ClusterState& cluster_;
  std::span<const PodSpec> pods_;
  const HamiSettings& settings_;
  int cores_;
  bool any_percent_ = false;
  std::vector<int64_t> admitted_;  // per node: Totalmem of each of its GPUs
  std::vector<uint8_t> used_;      // per GPU: tenants (HAMi's Used)
  std::vector<int64_t> in_use_;    // per GPU: what its tenants really use (MiB)
  std::vector<uint8_t> held_;      // per pod: holds its slots
  struct Ranked {
    float score;
    GpuId gpu;
  };
  mutable std::vector<Ranked> order_;  // scratch for pick(): one node's GPUs
  struct CachedSummary {
    HamiNodeSummary summary;
    uint64_t version = 0;  // the node's ClusterState::version it was built at
    bool valid = false;    // false: slots changed here since (reserve, release)
  };
  mutable std::vector<CachedSummary> summaries_;  // per node, built when first asked for
  HamiNodeScorer scorers_[3] = {HamiNodeScorer(std::nullopt), HamiNodeScorer(HamiPolicy::kBinpack),
                                HamiNodeScorer(HamiPolicy::kSpread)};
  // The node index: built at the first top_nodes(), then kept in step with the cluster's change
  // journal (index_seen_) and with the nodes whose slots changed here since (index_dirty_).
  mutable HamiNodeIndex index_;
  mutable bool index_built_ = false;
  mutable uint64_t index_seen_ = 0;
  mutable std::vector<NodeId> index_dirty_;
  mutable std::vector<int> index_class_;  // per node: its class (HamiNodeIndex::set_idle) or -1
  HamiTopNodes tops_[3] = {HamiTopNodes(*this, std::nullopt),
                           HamiTopNodes(*this, HamiPolicy::kBinpack),
                           HamiTopNodes(*this, HamiPolicy::kSpread)};
  HamiDevicePicker pickers_[3] = {HamiDevicePicker(std::nullopt),
                                  HamiDevicePicker(HamiPolicy::kBinpack),
                                  HamiDevicePicker(HamiPolicy::kSpread)};
};

}  // namespace slicelab
