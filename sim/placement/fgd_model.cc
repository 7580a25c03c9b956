#include "sim/placement/fgd_model.h"

#include <algorithm>
#include <cmath>

namespace slicelab {
namespace {

constexpr int kMemoGpus = 8;  // states of larger nodes do not fit the key and are not memoised

int to_milli(int units, int cap_units) {
  return static_cast<int>(static_cast<int64_t>(units) * 1000 / cap_units);
}

bool is_share(const ClusterState& cluster, const PodRequest& req) {
  return req.gpu_count == 1 && req.claim_units < cluster.capacity_units();
}

}  // namespace

size_t FgdModel::KeyHash::operator()(const Key& k) const {
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (const uint64_t w : k.w) {
    h ^= w + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ULL;
  }
  return static_cast<size_t>(h ^ (h >> 31));
}

int64_t FgdModel::score_after(double before, int64_t cpu_after, uint16_t model,
                              std::span<const int> milli) const {
  const double after = node_fragmentation(target_, cpu_after, model, milli);
  const double sigmoid = 1.0 / (1.0 + std::exp(-((before - after) / 1000.0)));
  return static_cast<int64_t>(sigmoid * 100.0);
}

int64_t FgdModel::node_score(const ClusterState& cluster, const PodRequest& req,
                             NodeId node) const {
  const int gpus = cluster.gpus_on(node);
  if (gpus > kMemoGpus) return compute(cluster, req, node);
  std::array<int, kMemoGpus> free{};
  const GpuId first = cluster.first_gpu(node);
  for (int i = 0; i < gpus; ++i)
    free[static_cast<size_t>(i)] = cluster.gpu_free_units(first + static_cast<GpuId>(i));
  // Insertion sort: at most 8 values (and std::sort here trips a GCC 12 array-bounds warning).
  for (int i = 1; i < gpus; ++i)
    for (int j = i; j > 0 && free[static_cast<size_t>(j - 1)] > free[static_cast<size_t>(j)]; --j)
      std::swap(free[static_cast<size_t>(j - 1)], free[static_cast<size_t>(j)]);
  Key key{};
  key.w[0] = static_cast<uint64_t>(cluster.cpu_free(node)) |
             (static_cast<uint64_t>(cluster.model(node)) << 42) |
             (static_cast<uint64_t>(gpus) << 50) | (static_cast<uint64_t>(req.gpu_count) << 56);
  key.w[1] = static_cast<uint64_t>(req.cpu_milli) | (static_cast<uint64_t>(req.claim_units) << 42);
  for (int i = 0; i < gpus; ++i) {
    const uint64_t v = static_cast<uint64_t>(free[static_cast<size_t>(i)]) & 0xffffU;
    key.w[2 + i / 4] |= v << (16 * (i % 4));
  }
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  const int64_t s = compute(cluster, req, node);
  memo_.emplace(key, s);
  return s;
}

int64_t FgdModel::compute(const ClusterState& cluster, const PodRequest& req, NodeId node) const {
  // A pod that requests nothing changes nothing: fgd_score.go gives it the top score.
  if (req.cpu_milli == 0 && req.memory_mib == 0 && req.gpu_count == 0) return 100;
  const int cap = cluster.capacity_units();
  const int gpus = std::min(cluster.gpus_on(node), 64);
  const GpuId first = cluster.first_gpu(node);
  // Scoring runs for every candidate node: no allocation here (nodes hold at most 64 GPUs).
  std::array<int, 64> milli_store{};
  const auto milli = std::span<int>(milli_store).first(static_cast<size_t>(gpus));
  for (size_t i = 0; i < milli.size(); ++i)
    milli[i] = to_milli(cluster.gpu_free_units(first + static_cast<GpuId>(i)), cap);
  const uint16_t model = cluster.model(node);
  const int64_t cpu_after = cluster.cpu_free(node) - req.cpu_milli;
  const double before = node_fragmentation(target_, cluster.cpu_free(node), model, milli);
  if (req.gpu_count == 0) return score_after(before, cpu_after, model, milli);
  if (!is_share(cluster, req)) {
    // NodeResource.Sub: the least free GPUs that fit, equal ones in index order.
    std::array<std::pair<int, int>, 64> order{};
    for (int i = 0; i < gpus; ++i)
      order[static_cast<size_t>(i)] = {milli[static_cast<size_t>(i)], i};
    std::stable_sort(order.begin(), order.begin() + gpus);
    const int claim_milli = to_milli(req.claim_units, cap);
    int left = req.gpu_count;
    for (int k = 0; k < gpus && left > 0; ++k) {
      const auto i = static_cast<size_t>(order[static_cast<size_t>(k)].second);
      if (cluster.gpu_free_units(first + static_cast<GpuId>(i)) < req.claim_units) continue;
      milli[i] -= claim_milli;
      --left;
    }
    return score_after(before, cpu_after, model, milli);
  }
  // A share of one GPU: the best over the GPUs that fit (equal free amounts score alike).
  int64_t best = -1;
  for (int i = 0; i < gpus; ++i) {
    const int units = cluster.gpu_free_units(first + static_cast<GpuId>(i));
    if (units < req.claim_units) continue;
    bool seen = false;
    for (int j = 0; j < i && !seen; ++j)
      seen = cluster.gpu_free_units(first + static_cast<GpuId>(j)) == units;
    if (seen) continue;
    const int saved = milli[static_cast<size_t>(i)];
    milli[static_cast<size_t>(i)] = to_milli(units - req.claim_units, cap);
    best = std::max(best, score_after(before, cpu_after, model, milli));
    milli[static_cast<size_t>(i)] = saved;
  }
  return std::max<int64_t>(best, 0);
}

int FgdModel::best_gpu(const ClusterState& cluster, const PodRequest& req, NodeId node) const {
  const int cap = cluster.capacity_units();
  const int gpus = std::min(cluster.gpus_on(node), 64);
  const GpuId first = cluster.first_gpu(node);
  std::array<int, 64> milli_store{};
  const auto milli = std::span<int>(milli_store).first(static_cast<size_t>(gpus));
  for (size_t i = 0; i < milli.size(); ++i)
    milli[i] = to_milli(cluster.gpu_free_units(first + static_cast<GpuId>(i)), cap);
  const uint16_t model = cluster.model(node);
  const int64_t cpu_after = cluster.cpu_free(node) - req.cpu_milli;
  const double before = node_fragmentation(target_, cluster.cpu_free(node), model, milli);
  int chosen = -1;
  int64_t best = -1;
  for (int i = 0; i < gpus; ++i) {
    const int units = cluster.gpu_free_units(first + static_cast<GpuId>(i));
    if (units < req.claim_units) continue;
    const int saved = milli[static_cast<size_t>(i)];
    milli[static_cast<size_t>(i)] = to_milli(units - req.claim_units, cap);
    const int64_t s = score_after(before, cpu_after, model, milli);
    milli[static_cast<size_t>(i)] = saved;
    if (s > best) {  // strictly better: the first GPU with the best score keeps it
      best = s;
      chosen = i;
    }
  }
  return chosen;
}

}  // namespace slicelab
