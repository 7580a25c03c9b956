#include "sim/metrics/whole_gpu_fragmentation_memo.h"

namespace slicelab {

double WholeGpuFragmentationMemo::operator()(int64_t cpu_free, uint16_t model,
                                             std::span<const int> free_milli) {
  const size_t shapes = target_.shapes.size();
  if (shapes > kMaxShapes || free_milli.size() > 127)
    return node_fragmentation(target_, cpu_free, model, free_milli);
  // Without branches: which GPUs are free is as random as the cluster's state.
  uint64_t free = 0;
  bool partial = false;
  for (const int f : free_milli) {
    partial |= static_cast<bool>(static_cast<int>(f != 0) & static_cast<int>(f != 1000));
    free += static_cast<uint64_t>(f == 1000);
  }
  if (partial) return node_fragmentation(target_, cpu_free, model, free_milli);
  uint64_t cpu_ok = 0;
  for (size_t s = 0; s < shapes; ++s)
    cpu_ok |= static_cast<uint64_t>(cpu_free >= target_.shapes[s].cpu_milli) << s;
  // 16 bits of model, 7 of GPU count, 7 of free GPUs, 16 of shapes whose CPU the node has.
  const uint64_t key =
      uint64_t{model} << 30 | uint64_t{free_milli.size()} << 23 | free << 16 | cpu_ok;
  size_t i = static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> 54) % kSlots;
  for (size_t probe = 0; probe < kSlots; ++probe, i = (i + 1) % kSlots) {
    Slot& slot = slots_[i];
    if (slot.key == key) return slot.value;
    if (slot.key != kEmpty) continue;
    const double value = node_fragmentation(target_, cpu_free, model, free_milli);
    // A full table would make every miss probe all of it: the last slot stays free.
    if (used_ + 1 < kSlots) {
      slot = {key, value};
      ++used_;
    }
    return value;
  }
  return node_fragmentation(target_, cpu_free, model, free_milli);
}

}  // namespace slicelab
