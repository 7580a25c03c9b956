// A scorer and a device picker that the sharing mode's run provides (ModePlacement): the registry
// names them, the run holds them, so that a mode's plugins live in its own folder (HAMi's).
#pragma once

#include <string>
#include <string_view>

#include "sim/placement/plugins.h"

namespace slicelab {

// Scores by the run's scorer of this name; throws std::logic_error when the run has none (the
// scenario loader refuses such a policy first).
class ModeScorer final : public Scorer {
 public:
  explicit ModeScorer(std::string_view name) : name_(name) {}
  std::string_view name() const override { return name_; }
  void score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
             std::span<int64_t> out) const override;
  std::optional<double> score_value(const SchedulingCycle& cycle, int64_t score) const override;

 private:
  std::string name_;
};

// Picks by the run's device picker of this name; throws std::logic_error when the run has none.
class ModeDevicePicker final : public DevicePicker {
 public:
  explicit ModeDevicePicker(std::string_view name) : name_(name) {}
  std::string_view name() const override { return name_; }
  bool pick(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> out) const override;

 private:
  std::string name_;
};

}  // namespace slicelab
