// The three plugin seams of placement, shaped like the Kubernetes scheduler framework:
// filters prune nodes, weighted scorers rank them, a device picker chooses GPUs on the winner.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "sim/cluster_state.h"
#include "workloads/rng.h"

namespace slicelab {

// Plugins see whole candidate lists at once (not one node per virtual call) so that the
// per-pod cost is one indirect call per plugin and the inner loops stay tight.
class Filter {
 public:
  virtual ~Filter() = default;
  virtual std::string_view name() const = 0;
  // Removes infeasible nodes from `candidates`, keeping the order of the rest. Must be
  // monotone: a node that passes keeps passing when it gains free resources, and one that
  // fails keeps failing when it loses them (the engine's retry shortcut relies on it).
  virtual void filter(const ClusterState& cluster, const PodRequest& req,
                      std::vector<NodeId>& candidates) const = 0;
};

class Scorer {
 public:
  virtual ~Scorer() = default;
  virtual std::string_view name() const = 0;
  // Writes a score in [0, 100] per candidate, higher is better.
  virtual void score(const ClusterState& cluster, const PodRequest& req,
                     std::span<const NodeId> candidates, Rng& rng, std::span<double> out) const = 0;
};

class DevicePicker {
 public:
  virtual ~DevicePicker() = default;
  virtual std::string_view name() const = 0;
  // Chooses req.gpu_count GPUs of `node` (which passed the filters) into out, in the order
  // of preference. Returns false if the node cannot hold the pod after all.
  virtual bool pick(const ClusterState& cluster, const PodRequest& req, NodeId node, Rng& rng,
                    std::span<GpuId> out) const = 0;
};

}  // namespace slicelab
