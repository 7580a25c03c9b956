#include "sim/placement/mode_plugins.h"

#include <stdexcept>

namespace slicelab {
namespace {

[[noreturn]] void missing(std::string_view kind, std::string_view name) {
  throw std::logic_error(std::string(kind) + " '" + std::string(name) +
                         "' needs the sharing mode whose run provides it");
}

}  // namespace

void ModeScorer::score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
                       std::span<int64_t> out) const {
  const Scorer* s = cycle.sharing ? cycle.sharing->named_scorer(name_) : nullptr;
  if (s == nullptr) missing("scorer", name_);
  s->score(cycle, candidates, out);
}

std::optional<double> ModeScorer::score_value(const SchedulingCycle& cycle, int64_t score) const {
  const Scorer* s = cycle.sharing ? cycle.sharing->named_scorer(name_) : nullptr;
  return s != nullptr ? s->score_value(cycle, score) : std::nullopt;
}

bool ModeDevicePicker::pick(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> out) const {
  const DevicePicker* p = cycle.sharing ? cycle.sharing->named_picker(name_) : nullptr;
  if (p == nullptr) missing("device picker", name_);
  return p->pick(cycle, node, out);
}

}  // namespace slicelab
