#include "sim/modes/vm/vgpu_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <utility>

#include "workloads/input_limits.h"

namespace slicelab {

VgpuState::VgpuState(const ClusterState& cluster, const GpuCatalog& catalog,
                     std::string_view fixed_size, std::span<const PodSpec> pods,
                     PodRequestView requests)
    : cluster_(cluster), pods_(pods), fixed_size_(fixed_size), models_(catalog.models().size()) {
  for (const GpuModel& m : catalog.models()) table_.push_back(vgpu_table_for(m.name));
  gpu_profile_.assign(cluster.gpu_count(), kNone);
  count_.assign(cluster.gpu_count(), 0);
  pod_profile_.assign(pods.size() * models_, kNone);
  for (size_t p = 0; p < pods.size(); ++p) {
    if (pods[p].gpu_count == 0) continue;
    for (size_t m = 0; m < models_; ++m)
      if (table_[m] && ((requests[p].model_mask >> m) & 1U) != 0)
        pod_profile_[p * models_ + m] = profile_for(*table_[m], pods[p], fixed_size_);
  }
}

int8_t VgpuState::profile_for(const VgpuTable& table, const PodSpec& pod,
                              std::string_view fixed_size) {
  int8_t best = kNone;
  for (size_t i = 0; i < table.profiles.size(); ++i) {
    const VgpuProfile& p = table.profiles[i];
    if (!fixed_size.empty()) {
      if (p.size() == fixed_size) return static_cast<int8_t>(i);
      continue;
    }
    if (p.framebuffer_mib() < pod.gpu_memory_mib) continue;
    if (static_cast<int64_t>(pod.gpu_milli) * p.max_per_gpu > 1000) continue;
    // Largest first: a later fit has a smaller frame buffer (or equal, and is not taken).
    if (best == kNone ||
        p.framebuffer_gb < table.profiles[static_cast<size_t>(best)].framebuffer_gb)
      best = static_cast<int8_t>(i);
  }
  return best;
}

int8_t VgpuState::profile_index(GpuId g, uint32_t pod) const {
  return pod_profile_[pod * models_ + cluster_.model(cluster_.node_of(g))];
}

std::optional<std::string> VgpuState::never_fits(uint32_t p) const {
  const PodSpec& s = pods_[p];
  for (NodeId n = 0; n < cluster_.node_count(); ++n) {
    if (cluster_.gpus_on(n) < s.gpu_count) continue;
    if (pod_profile_[p * models_ + cluster_.model(n)] != kNone) return std::nullopt;
  }
  if (!fixed_size_.empty())
    return fmt::format("no node has {} GPUs of a model with vGPU profile {}", s.gpu_count,
                       fixed_size_);
  return fmt::format("no node has {} GPUs of a model with a vGPU profile of {} MiB and {} milli",
                     s.gpu_count, s.gpu_memory_mib, s.gpu_milli);
}

bool VgpuState::fits(GpuId g, uint32_t pod) const {
  const int8_t q = profile_index(g, pod);
  if (q == kNone) return false;
  if (gpu_profile_[g] == kNone) return true;
  if (gpu_profile_[g] != q) return false;
  const VgpuTable& t = *table_[cluster_.model(cluster_.node_of(g))];
  return count_[g] < t.profiles[static_cast<size_t>(q)].max_per_gpu;
}

int VgpuState::usable_gpus(NodeId n, uint32_t pod) const {
  int c = 0;
  for (GpuId g = cluster_.first_gpu(n); g < cluster_.first_gpu(n + 1); ++g) c += fits(g, pod);
  return c;
}

void VgpuState::choose(NodeId n, uint32_t pod, std::span<GpuId> out) const {
  std::array<std::pair<int, GpuId>, kMaxGpusPerNode> fit{};
  size_t k = 0;
  for (GpuId g = cluster_.first_gpu(n); g < cluster_.first_gpu(n + 1) && k < fit.size(); ++g)
    if (fits(g, pod)) fit[k++] = {-static_cast<int>(count_[g]), g};
  std::sort(fit.begin(), fit.begin() + static_cast<std::ptrdiff_t>(k));
  assert(k >= out.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = fit[i].second;
}

void VgpuState::occupy(GpuId g, uint32_t pod) {
  assert(fits(g, pod));
  gpu_profile_[g] = profile_index(g, pod);
  ++count_[g];
}

void VgpuState::release(GpuId g, uint32_t /*pod*/) {
  assert(count_[g] > 0);
  if (--count_[g] == 0) gpu_profile_[g] = kNone;  // empty: any type may take it again
}

const VgpuProfile* VgpuState::hosted(GpuId g) const {
  if (gpu_profile_[g] == kNone) return nullptr;
  return &table_[cluster_.model(cluster_.node_of(g))]
              ->profiles[static_cast<size_t>(gpu_profile_[g])];
}

const VgpuProfile* VgpuState::pod_profile(GpuId g, uint32_t pod) const {
  const int8_t q = profile_index(g, pod);
  if (q == kNone) return nullptr;
  return &table_[cluster_.model(cluster_.node_of(g))]->profiles[static_cast<size_t>(q)];
}

int VgpuState::claim_units(GpuId g, uint32_t pod) const {
  const VgpuProfile* p = pod_profile(g, pod);
  return p ? kVgpuUnitsPerGpu / p->max_per_gpu : kVgpuUnitsPerGpu;
}

}  // namespace slicelab
