#include "sim/engine/bound_gpus.h"

#include <algorithm>

namespace slicelab {

void BoundGpus::prepare(std::span<const PodSpec> pods, std::span<PodOutcome> outcomes) {
  uint32_t room = 0;
  for (size_t p = 0; p < pods.size(); ++p) {
    outcomes[p].gpu_begin = room;
    outcomes[p].gpu_count = 0;
    room += static_cast<uint32_t>(pods[p].gpu_count);
  }
  within_node_.assign(room, 0);
}

std::vector<uint16_t> BoundGpus::take(std::span<PodOutcome> outcomes) {
  // Packing moves each pod's GPUs to an index no later than its room's: front to back, a copy
  // never overwrites GPUs not yet moved.
  uint32_t packed = 0;
  for (PodOutcome& o : outcomes) {
    const bool holds = o.node >= 0 && o.status != PodStatus::kFailed;
    const uint8_t count = holds ? o.gpu_count : 0;
    const auto from = within_node_.begin() + o.gpu_begin;
    if (o.gpu_begin != packed) std::copy(from, from + count, within_node_.begin() + packed);
    o.gpu_begin = packed;
    o.gpu_count = count;
    packed += count;
  }
  within_node_.resize(packed);
  return std::move(within_node_);
}

}  // namespace slicelab
