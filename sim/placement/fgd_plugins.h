// The fgd scorer and device picker: both ask one shared FgdModel, so the GPU a node was
// scored for is the GPU the pod gets.
#pragma once

#include <memory>

#include "sim/placement/device_pickers.h"
#include "sim/placement/fgd_model.h"
#include "sim/placement/plugins.h"

namespace slicelab {

class FgdScorer final : public Scorer {
 public:
  explicit FgdScorer(std::shared_ptr<const FgdModel> model) : model_(std::move(model)) {}
  std::string_view name() const override { return "fgd"; }
  void score(const SchedulingCycle& cycle, std::span<const NodeId> candidates,
             std::span<int64_t> out) const override;

 private:
  std::shared_ptr<const FgdModel> model_;
};

class FgdDevicePicker final : public DevicePicker {
 public:
  explicit FgdDevicePicker(std::shared_ptr<const FgdModel> model) : model_(std::move(model)) {}
  std::string_view name() const override { return "fgd"; }
  // A share of one GPU goes where the model scored it; whole GPUs to the lowest-index idle ones.
  bool pick(const SchedulingCycle& cycle, NodeId node, std::span<GpuId> out) const override;

 private:
  std::shared_ptr<const FgdModel> model_;
  OrderedDevicePicker whole_{OrderedDevicePicker::Order::kFullestFirst};
};

}  // namespace slicelab
