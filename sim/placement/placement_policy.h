// One placement policy: an ordered list of filters, weighted scorers and a device picker, run
// as the Kubernetes scheduler runs its plugins. Holds scratch buffers: one instance per run.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/placement/plugins.h"

namespace slicelab {

struct WeightedScorer {
  std::unique_ptr<Scorer> scorer;
  double weight = 1.0;
};

class PlacementPolicy {
 public:
  PlacementPolicy(std::vector<std::unique_ptr<Filter>> filters, std::vector<WeightedScorer> scorers,
                  std::unique_ptr<DevicePicker> picker);

  // Chooses a node and writes its GPUs to gpus_out[0, req.gpu_count). With no scorers, or on
  // equal totals, the lowest node index wins, which makes runs reproducible.
  // `only`, when not empty, is the ascending list of nodes that can possibly be feasible (the
  // engine knows this for retries); the result equals that of a scan over all nodes provided
  // every feasible node is in it, because filters must be monotone in free resources.
  std::optional<NodeId> place(const ClusterState& cluster, const PodRequest& req, Rng& rng,
                              std::span<GpuId> gpus_out, std::span<const NodeId> only = {});

  std::string describe() const;  // "filters=[...] scorers=[binpack:1] picker=binpack"

 private:
  std::vector<std::unique_ptr<Filter>> filters_;
  std::vector<WeightedScorer> scorers_;
  std::unique_ptr<DevicePicker> picker_;
  std::vector<NodeId> candidates_;
  std::vector<double> total_, scratch_;
};

}  // namespace slicelab
