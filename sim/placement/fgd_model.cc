#include "sim/placement/fgd_model.h"

#include <algorithm>
#include <cmath>
#include <span>

namespace slicelab {
namespace {

constexpr int kMemoGpus = 8;  // states of larger nodes do not fit the key and are not memoised

double to_milli(int units, int cap_units) {
  return static_cast<double>(units) * 1000.0 / static_cast<double>(cap_units);
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

FgdModel::Choice FgdModel::evaluate(const ClusterState& cluster, const PodRequest& req,
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
  const Choice c = compute(cluster, req, node);
  memo_.emplace(key, c);
  return c;
}

FgdModel::Choice FgdModel::compute(const ClusterState& cluster, const PodRequest& req,
                                   NodeId node) const {
  const int cap = cluster.capacity_units();
  const int gpus = cluster.gpus_on(node);
  const GpuId first = cluster.first_gpu(node);
  // Scoring runs for every candidate node: no allocation here (nodes hold at most 64 GPUs).
  std::array<int, 64> milli_store{};
  const auto milli = std::span<int>(milli_store).first(static_cast<size_t>(std::min(gpus, 64)));
  for (size_t i = 0; i < milli.size(); ++i)
    milli[i] =
        static_cast<int>(to_milli(cluster.gpu_free_units(first + static_cast<GpuId>(i)), cap));
  const uint16_t model = cluster.model(node);
  const int64_t cpu_after = cluster.cpu_free(node) - req.cpu_milli;
  const double before = node_fragmentation(target_, cluster.cpu_free(node), model, milli);
  auto score_of = [&](double after) {
    return 100.0 / (1.0 + std::exp(-(before - after) / 1000.0));
  };

  Choice best;
  if (req.gpu_count == 0) {
    best.score = score_of(node_fragmentation(target_, cpu_after, model, milli));
    return best;
  }
  const int claim_milli = static_cast<int>(to_milli(req.claim_units, cap));
  if (req.gpu_count > 1 || req.claim_units == cap) {
    // Whole GPUs: which of the fitting GPUs does not change the measure when they are all
    // equally free; take the first ones that fit.
    int left = req.gpu_count;
    for (int i = 0; i < static_cast<int>(milli.size()) && left > 0; ++i) {
      if (cluster.gpu_free_units(first + static_cast<GpuId>(i)) >= req.claim_units) {
        milli[static_cast<size_t>(i)] -= claim_milli;
        --left;
      }
    }
    best.score = score_of(node_fragmentation(target_, cpu_after, model, milli));
    return best;
  }
  // A share of one GPU: try each distinct amount of free room; ties go to the fuller GPU.
  bool found = false;
  for (int i = 0; i < static_cast<int>(milli.size()); ++i) {
    const int units = cluster.gpu_free_units(first + static_cast<GpuId>(i));
    if (units < req.claim_units) continue;
    bool seen = false;
    for (int j = 0; j < i; ++j)
      seen |= cluster.gpu_free_units(first + static_cast<GpuId>(j)) == units;
    if (seen) continue;
    const int saved = milli[static_cast<size_t>(i)];
    milli[static_cast<size_t>(i)] = static_cast<int>(to_milli(units - req.claim_units, cap));
    const double s = score_of(node_fragmentation(target_, cpu_after, model, milli));
    milli[static_cast<size_t>(i)] = saved;
    if (!found || s > best.score || (s == best.score && units < best.gpu_free_units)) {
      best = {s, units};
      found = true;
    }
  }
  return best;
}

}  // namespace slicelab
