// HAMi's scheduler as placement plugins: its node score (binpack: the highest, spread: the
// lowest) and its device order; they read the run's HAMi state, which holds them (HamiRun's
// named_scorer / named_picker), and the registry names them (sim/placement/mode_plugins.h).
#pragma once

#include <optional>

#include "sim/modes/hami/hami_settings.h"
#include "sim/placement/mode_index.h"
#include "sim/placement/plugins.h"

namespace slicelab {

class HamiRun;

// `policy` nullopt: the scheduler's own (the sharing settings' node_policy / gpu_policy).
class HamiNodeScorer final : public Scorer {
 public:
  explicit HamiNodeScorer(std::optional<HamiPolicy> policy) : policy_(policy) {}
  std::string_view name() const override;
  // An integer of the same order as HAMi's float32 score (hami_score_key), negated in effect
  // for spread, so the framework's highest total is HAMi's choice: not a 0-100 score.
  void score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
             std::span<int64_t> out) const override;
  // HAMi's float32 node score behind the integer.
  std::optional<double> score_value(const SchedulingCycle& cycle, int64_t score) const override;

 private:
  std::optional<HamiPolicy> policy_;
};

class HamiDevicePicker final : public DevicePicker {
 public:
  explicit HamiDevicePicker(std::optional<HamiPolicy> policy) : policy_(policy) {}
  std::string_view name() const override;
  bool pick(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> out) const override;

 private:
  std::optional<HamiPolicy> policy_;
};

// The nodes HamiNodeScorer(policy) scores highest among those that pass the run's filter (HAMi's)
// and the policy's, from the run's node index (HamiRun::top_nodes): the full pass's maxima.
class HamiTopNodes final : public ModeIndex {
 public:
  HamiTopNodes(const HamiRun& run, std::optional<HamiPolicy> policy) : run_(run), policy_(policy) {}
  // Only the run's own filter: top_nodes() applies it.
  bool applies(std::span<Filter* const> run_filters) const override;
  void top_nodes(const SchedulingCycle& cycle, const PolicyNeed& need,
                 const std::function<bool(NodeId)>& passes, std::vector<NodeId>& ties,
                 std::vector<TiedSet>& sets) const override;

 private:
  const HamiRun& run_;
  std::optional<HamiPolicy> policy_;
};

// The run's HAMi state; throws std::logic_error when the run is not under sharing mode hami
// (the scenario loader refuses that combination first).
const HamiRun& hami_run_of(const SchedulingCycle& cycle);

}  // namespace slicelab
