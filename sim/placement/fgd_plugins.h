// The fgd scorer and device picker: both ask one shared FgdModel, so the GPU a node was
// scored for is the GPU the pod gets.
#pragma once

#include <memory>

#include "sim/placement/fgd_model.h"
#include "sim/placement/plugins.h"

namespace slicelab {

class FgdScorer final : public Scorer {
 public:
  explicit FgdScorer(std::shared_ptr<const FgdModel> model) : model_(std::move(model)) {}
  std::string_view name() const override { return "fgd"; }
  void score(const ClusterState& cluster, const PodRequest& req, std::span<const NodeId> candidates,
             Rng& rng, std::span<double> out) const override;

 private:
  std::shared_ptr<const FgdModel> model_;
};

class FgdDevicePicker final : public DevicePicker {
 public:
  explicit FgdDevicePicker(std::shared_ptr<const FgdModel> model) : model_(std::move(model)) {}
  std::string_view name() const override { return "fgd"; }
  bool pick(const ClusterState& cluster, const PodRequest& req, NodeId node, Rng& rng,
            std::span<GpuId> out) const override;

 private:
  std::shared_ptr<const FgdModel> model_;
};

}  // namespace slicelab
