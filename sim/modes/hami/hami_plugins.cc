#include "sim/modes/hami/hami_plugins.h"

#include <bit>
#include <stdexcept>

#include "sim/modes/hami/hami_run.h"

namespace slicelab {
namespace {

std::string_view plugin_name(std::optional<HamiPolicy> p) {
  if (!p) return "hami";
  return *p == HamiPolicy::kBinpack ? "hami-binpack" : "hami-spread";
}

}  // namespace

const HamiRun& hami_run_of(const SchedulingCycle& cycle) {
  const auto* run = dynamic_cast<const HamiRun*>(cycle.sharing);
  if (run == nullptr) throw std::logic_error("HAMi's placement plugins need sharing mode hami");
  return *run;
}

std::string_view HamiNodeScorer::name() const {
  return plugin_name(policy_);
}

void HamiNodeScorer::score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
                           std::span<int64_t> out) const {
  const HamiRun& run = hami_run_of(cycle);
  const HamiPolicy policy = policy_.value_or(run.settings().node_policy);
  // Spread takes the lowest score: keys counted down from the largest a float32 can give.
  constexpr int64_t kTop = int64_t{1} << 32;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const int64_t key = hami_score_key(run.node_score(candidates[i]));
    out[i] = policy == HamiPolicy::kBinpack ? key : kTop - key;
  }
}

std::optional<double> HamiNodeScorer::score_value(const SchedulingCycle& cycle,
                                                  int64_t score) const {
  const HamiRun& run = hami_run_of(cycle);
  const HamiPolicy policy = policy_.value_or(run.settings().node_policy);
  constexpr int64_t kTop = int64_t{1} << 32;
  const int64_t key = policy == HamiPolicy::kBinpack ? score : kTop - score;
  return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(key)));
}

bool HamiTopNodes::applies(std::span<Filter* const> run_filters) const {
  return run_filters.size() == 1 && run_filters.front() == static_cast<const Filter*>(&run_);
}

void HamiTopNodes::top_nodes(const SchedulingCycle& cycle, const PolicyNeed& need,
                             const std::function<bool(NodeId)>& passes, std::vector<NodeId>& ties,
                             std::vector<TiedSet>& sets) const {
  run_.top_nodes(cycle, policy_.value_or(run_.settings().node_policy), need, passes, ties, sets);
}

std::string_view HamiDevicePicker::name() const {
  return plugin_name(policy_);
}

bool HamiDevicePicker::pick(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> out) const {
  const HamiRun& run = hami_run_of(cycle);
  return run.pick(cycle, node, policy_.value_or(run.settings().gpu_policy), out);
}

}  // namespace slicelab
