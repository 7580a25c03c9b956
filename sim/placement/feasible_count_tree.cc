#include "sim/placement/feasible_count_tree.h"

#include <algorithm>
#include <limits>

namespace slicelab {

void FeasibleCountTree::pull(size_t v) {
  const size_t l = 2 * v, r = 2 * v + 1;
  cpu_min_[v] = std::min(cpu_min_[l], cpu_min_[r]);
  cpu_max_[v] = std::max(cpu_max_[l], cpu_max_[r]);
  mem_min_[v] = std::min(mem_min_[l], mem_min_[r]);
  mem_max_[v] = std::max(mem_max_[l], mem_max_[r]);
  idle_max_[v] = std::max(idle_max_[l], idle_max_[r]);
  for (size_t g = 0; g < stride_; ++g) {
    idle_at_least_[v * stride_ + g] =
        idle_at_least_[l * stride_ + g] + idle_at_least_[r * stride_ + g];
    gpu_idle_at_least_[v * stride_ + g] =
        gpu_idle_at_least_[l * stride_ + g] + gpu_idle_at_least_[r * stride_ + g];
  }
}

void FeasibleCountTree::set_leaf(const ClusterState& cluster, NodeId n) {
  const size_t v = leaves_ + n;
  cpu_min_[v] = cpu_max_[v] = cluster.cpu_free(n);
  mem_min_[v] = mem_max_[v] = cluster.memory_free(n);
  const int idle = cluster.idle_gpus(n);
  idle_max_[v] = idle;
  const bool gpu_idle = idle == cluster.gpus_on(n);
  for (size_t g = 0; g < stride_; ++g) {
    idle_at_least_[v * stride_ + g] = static_cast<int>(g) <= idle ? 1U : 0U;
    gpu_idle_at_least_[v * stride_ + g] = gpu_idle && static_cast<int>(g) <= idle ? 1U : 0U;
  }
}

void FeasibleCountTree::rebuild(const ClusterState& cluster) {
  nodes_ = cluster.node_count();
  max_gpus_ = cluster.max_gpus_per_node();
  stride_ = static_cast<size_t>(max_gpus_) + 1;
  leaves_ = 1;
  while (leaves_ < nodes_) leaves_ *= 2;
  constexpr int64_t kLow = std::numeric_limits<int64_t>::min();
  constexpr int64_t kHigh = std::numeric_limits<int64_t>::max();
  cpu_min_.assign(2 * leaves_, kHigh);
  cpu_max_.assign(2 * leaves_, kLow);
  mem_min_.assign(2 * leaves_, kHigh);
  mem_max_.assign(2 * leaves_, kLow);
  idle_max_.assign(2 * leaves_, std::numeric_limits<int>::min());
  idle_at_least_.assign(2 * leaves_ * stride_, 0);
  gpu_idle_at_least_.assign(2 * leaves_ * stride_, 0);
  gpu_sizes_ = 0;
  models_.assign(2 * leaves_, 0);
  gpu_mem_min_.assign(2 * leaves_, kHigh);
  gpus_min_.assign(2 * leaves_, std::numeric_limits<int>::max());
  for (NodeId n = 0; n < nodes_; ++n) {
    set_leaf(cluster, n);
    if (const int g = cluster.gpus_on(n); g >= 1 && g <= 64) gpu_sizes_ |= uint64_t{1} << (g - 1);
    const size_t v = leaves_ + n;
    const unsigned model = cluster.model(n);
    // A model past the mask's 64 bits is never settled by counts (every mask leaves it out).
    models_[v] = model < 64 ? uint64_t{1} << model : ~uint64_t{0};
    gpu_mem_min_[v] = cluster.gpu_memory_capacity(n);
    gpus_min_[v] = cluster.gpus_on(n);
  }
  for (size_t v = leaves_ - 1; v >= 1; --v) {
    pull(v);
    models_[v] = models_[2 * v] | models_[2 * v + 1];
    gpu_mem_min_[v] = std::min(gpu_mem_min_[2 * v], gpu_mem_min_[2 * v + 1]);
    gpus_min_[v] = std::min(gpus_min_[2 * v], gpus_min_[2 * v + 1]);
  }
}

void FeasibleCountTree::sync(const ClusterState& cluster) {
  follower_.sync(
      cluster, cluster.node_count(), [&] { rebuild(cluster); },
      [&](std::span<const NodeId> changed) {
        for (const NodeId n : changed) {
          set_leaf(cluster, n);
          for (size_t v = (leaves_ + n) / 2; v >= 1; v /= 2) pull(v);
        }
      });
}

}  // namespace slicelab
