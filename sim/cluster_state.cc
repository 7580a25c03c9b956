#include "sim/cluster_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

namespace slicelab {

ClusterState::ClusterState(const ClusterSpec& spec, const GpuCatalog& catalog,
                           int gpu_capacity_units)
    : cap_units_(gpu_capacity_units) {
  const size_t nodes = spec.node_count();
  cpu_cap_.reserve(nodes);
  node_.reserve(nodes);
  GpuId next_gpu = 0;
  for (const auto& group : spec.groups) {
    for (int i = 0; i < group.count; ++i) {
      Node node;
      node.cpu_free = group.cpu_milli;
      node.mem_free = group.memory_mib;
      node.model = static_cast<uint16_t>(group.gpu_model);
      node.gpu_mem_cap = group.gpus_per_node > 0 ? catalog.models()[group.gpu_model].memory_mib : 0;
      node.gpu_begin = next_gpu;
      node.gpus = static_cast<uint16_t>(group.gpus_per_node);
      node_.push_back(node);
      cpu_cap_.push_back(group.cpu_milli);
      mem_cap_.push_back(group.memory_mib);
      names_.push_back(group.node_names.empty() ? fmt::format("{}-{}", group.name, i)
                                                : group.node_names[static_cast<size_t>(i)]);
      topology_.push_back(group.topology);
      for (int g = 0; g < group.gpus_per_node; ++g)
        gpu_node_.push_back(static_cast<NodeId>(node_.size() - 1));
      next_gpu += static_cast<GpuId>(group.gpus_per_node);
      max_gpus_ = std::max(max_gpus_, group.gpus_per_node);
      max_cpu_ = std::max(max_cpu_, group.cpu_milli);
    }
  }
  gpu_free_units_.assign(next_gpu, cap_units_);
  gpu_mem_used_.assign(next_gpu, 0);
  for (NodeId n = 0; n < nodes; ++n) refresh_node_gpu_summary(n);
}

int ClusterState::count_fitting_gpus(NodeId n, int claim_units) const {
  int fitting = 0;
  const GpuId end = node_[n].gpu_begin + node_[n].gpus;
  for (GpuId g = node_[n].gpu_begin; g < end; ++g)
    fitting += gpu_free_units_[g] >= claim_units ? 1 : 0;
  return fitting;
}

void ClusterState::refresh_node_gpu_summary(NodeId n) {
  Node& node = node_[n];
  int idle = 0, max_free = 0;
  int64_t total = 0;
  const GpuId end = node.gpu_begin + node.gpus;
  for (GpuId g = node.gpu_begin; g < end; ++g) {
    const int f = gpu_free_units_[g];
    idle += f == cap_units_ ? 1 : 0;
    max_free = std::max(max_free, f);
    total += f;
  }
  node.idle_gpus = idle;
  node.max_free_units = max_free;
  node.free_units = total;
}

void ClusterState::journal(NodeId n) {
  // Keep at least a node count's worth (a consumer further behind rebuilds for about what it
  // would cost to replay them); drop the older half at once: amortised O(1) per change.
  const size_t keep = std::max<size_t>(node_count(), 64);
  if (journal_.size() >= 2 * keep) {
    journal_base_ += journal_.size() - keep;
    journal_.erase(journal_.begin(), journal_.end() - static_cast<std::ptrdiff_t>(keep));
  }
  journal_.push_back(n);
}

void ClusterState::track_shape_tags(size_t tags) {
  tags_ = tags;
  tag_counts_.assign(node_count() * tags, 0);
  for (Node& node : node_) node.distinct_tags = 0;
}

void ClusterState::bind(NodeId n, std::span<const GpuId> gpus, const PodRequest& req) {
  Node& node = node_[n];
  if (req.shape_tag < tags_ && tag_counts_[n * tags_ + req.shape_tag]++ == 0) ++node.distinct_tags;
  ++node.version;
  journal(n);
  node.cpu_free -= req.cpu_milli;
  node.mem_free -= req.memory_mib;
  for (const GpuId g : gpus) {
    assert(gpu_node_[g] == n && gpu_free_units_[g] >= req.claim_units);
    gpu_free_units_[g] -= req.claim_units;
    gpu_mem_used_[g] += req.gpu_memory_mib;
  }
  allocated_units_ += static_cast<int64_t>(gpus.size()) * req.claim_units;
  if (!gpus.empty()) refresh_node_gpu_summary(n);
}

void ClusterState::unbind(NodeId n, std::span<const GpuId> gpus, const PodRequest& req) {
  Node& node = node_[n];
  if (req.shape_tag < tags_ && --tag_counts_[n * tags_ + req.shape_tag] == 0) --node.distinct_tags;
  ++node.version;
  journal(n);
  node.cpu_free += req.cpu_milli;
  node.mem_free += req.memory_mib;
  for (const GpuId g : gpus) {
    gpu_free_units_[g] += req.claim_units;
    gpu_mem_used_[g] -= req.gpu_memory_mib;
  }
  allocated_units_ -= static_cast<int64_t>(gpus.size()) * req.claim_units;
  if (!gpus.empty()) refresh_node_gpu_summary(n);
}

}  // namespace slicelab
