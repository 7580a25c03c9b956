// The as-recorded policy's device picker: a pod takes the GPUs the recording says it had
// (workload.placements' `gpus`) when they are on the chosen node and have room; otherwise, and
// for pods without recorded GPUs, the lowest-index GPUs that fit (as `first`).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/placement/device_pickers.h"
#include "sim/placement/plugins.h"

namespace slicelab {

// One pod's recorded GPUs: indices within its node, as the device plugin and nvidia-smi count.
struct RecordedGpus {
  uint32_t pod = 0;  // index into the run's workload
  std::vector<int> gpus;
};

class RecordedGpuPicker final : public DevicePicker {
 public:
  RecordedGpuPicker(std::span<const RecordedGpus> recorded, size_t pod_count);
  std::string_view name() const override { return "recorded-gpus"; }
  bool pick(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> out) const override;

 private:
  std::vector<std::vector<int>> gpus_of_;  // per pod of the run; empty: none recorded
  OrderedDevicePicker fallback_{OrderedDevicePicker::Order::kLowestIndex};
};

}  // namespace slicelab
