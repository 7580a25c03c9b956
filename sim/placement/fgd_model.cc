#include "sim/placement/fgd_model.h"

#include <algorithm>
#include <cmath>

#include "workloads/input_limits.h"

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

FgdModel::Shape FgdModel::Shape::of(const PodRequest& req) {
  return {req.cpu_milli, req.gpu_count, req.claim_units,
          req.cpu_milli == 0 && req.memory_mib == 0 && req.gpu_count == 0};
}

size_t FgdModel::shape_id(const ClusterState& cluster, const PodRequest& req) const {
  if (cached_cluster_ != &cluster || cached_nodes_ != cluster.node_count()) {
    cached_cluster_ = &cluster;
    cached_nodes_ = cluster.node_count();
    shapes_.clear();
    last_shape_ = SIZE_MAX;
    node_states_.assign(cached_nodes_, NodeState{});
    state_ids_.clear();
    state_scores_.clear();
  }
  const Shape shape = Shape::of(req);
  if (last_shape_ < shapes_.size() && shapes_[last_shape_] == shape) return last_shape_;
  // A linear search: a run has tens to hundreds of shapes, and it runs once per cycle.
  for (size_t i = 0; i < shapes_.size(); ++i)
    if (shapes_[i] == shape) return last_shape_ = i;
  shapes_.push_back(shape);
  return last_shape_ = shapes_.size() - 1;
}

// The node's state as the memo keys it, without the request: model, GPU count, free CPU and
// the sorted free units of its GPUs (gpus_on(node) <= kMemoGpus).
FgdModel::Key FgdModel::state_key(const ClusterState& cluster, NodeId node) {
  const int gpus = cluster.gpus_on(node);
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
             (static_cast<uint64_t>(gpus) << 50);
  for (int i = 0; i < gpus; ++i) {
    const uint64_t v = static_cast<uint64_t>(free[static_cast<size_t>(i)]) & 0xffffU;
    key.w[2 + i / 4] |= v << (16 * (i % 4));
  }
  return key;
}

uint32_t FgdModel::intern_state(const ClusterState& cluster, NodeId node) const {
  if (cluster.gpus_on(node) > kMemoGpus) return kNotInterned;
  const auto [it, fresh] =
      state_ids_.try_emplace(state_key(cluster, node), static_cast<uint32_t>(state_scores_.size()));
  if (fresh) state_scores_.emplace_back();
  return it->second;
}

int64_t FgdModel::cached_score(const ClusterState& cluster, const PodRequest& req, NodeId node,
                               size_t shape) const {
  NodeState& ns = node_states_[node];
  const uint64_t v = cluster.version(node) + 1;
  if (ns.version_plus_1 != v) ns = {v, intern_state(cluster, node)};
  if (ns.state == kNotInterned) return memo_score(cluster, req, node);
  std::vector<int8_t>& scores = state_scores_[ns.state];
  if (shape >= scores.size()) scores.resize(shapes_.size(), -1);
  int8_t& s = scores[shape];
  // Filled from the memo, so that every answer is the one the memo alone gave (scores are
  // 0..100).
  if (s < 0) s = static_cast<int8_t>(memo_score(cluster, req, node));
  return s;
}

int64_t FgdModel::node_score(const ClusterState& cluster, const PodRequest& req,
                             NodeId node) const {
  return cached_score(cluster, req, node, shape_id(cluster, req));
}

void FgdModel::node_scores(const ClusterState& cluster, const PodRequest& req,
                           std::span<const NodeId> nodes, std::span<int64_t> out) const {
  const size_t shape = shape_id(cluster, req);
  for (size_t i = 0; i < nodes.size(); ++i) out[i] = cached_score(cluster, req, nodes[i], shape);
}

int64_t FgdModel::memo_score(const ClusterState& cluster, const PodRequest& req,
                             NodeId node) const {
  if (cluster.gpus_on(node) > kMemoGpus) return compute(cluster, req, node);
  // The node's state key plus the request's part (same bits as before the state ids existed).
  Key key = state_key(cluster, node);
  key.w[0] |= static_cast<uint64_t>(req.gpu_count) << 56;
  key.w[1] = static_cast<uint64_t>(req.cpu_milli) | (static_cast<uint64_t>(req.claim_units) << 42);
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  const int64_t s = compute(cluster, req, node);
  memo_.emplace(key, s);
  return s;
}

// The node's free milli per GPU into `store`, the view of its first gpus_on(node) entries.
std::span<int> FgdModel::free_milli(const ClusterState& cluster, NodeId node,
                                    std::array<int, kMaxGpusPerNode>& store) {
  const int cap = cluster.capacity_units();
  const GpuId first = cluster.first_gpu(node);
  const auto milli = std::span<int>(store).first(
      static_cast<size_t>(std::min(cluster.gpus_on(node), static_cast<int>(store.size()))));
  for (size_t i = 0; i < milli.size(); ++i)
    milli[i] = to_milli(cluster.gpu_free_units(first + static_cast<GpuId>(i)), cap);
  return milli;
}

int64_t FgdModel::compute(const ClusterState& cluster, const PodRequest& req, NodeId node) const {
  // A pod that requests nothing changes nothing: fgd_score.go gives it the top score.
  if (req.cpu_milli == 0 && req.memory_mib == 0 && req.gpu_count == 0) return 100;
  if (is_share(cluster, req)) return std::max<int64_t>(best_share(cluster, req, node).score, 0);
  // Scoring runs for every candidate node: no allocation here (a node has kMaxGpusPerNode GPUs
  // at most).
  std::array<int, kMaxGpusPerNode> store{};
  const auto milli = free_milli(cluster, node, store);
  const auto gpus = static_cast<int>(milli.size());
  const uint16_t model = cluster.model(node);
  const int64_t cpu_after = cluster.cpu_free(node) - req.cpu_milli;
  const double before = node_fragmentation(target_, cluster.cpu_free(node), model, milli);
  if (req.gpu_count > 0) {
    // NodeResource.Sub: the least free GPUs that fit, equal ones in index order.
    std::array<std::pair<int, int>, kMaxGpusPerNode> order{};
    for (int i = 0; i < gpus; ++i)
      order[static_cast<size_t>(i)] = {milli[static_cast<size_t>(i)], i};
    std::stable_sort(order.begin(), order.begin() + gpus);
    const int cap = cluster.capacity_units();
    const int claim_milli = to_milli(req.claim_units, cap);
    const GpuId first = cluster.first_gpu(node);
    int left = req.gpu_count;
    for (int k = 0; k < gpus && left > 0; ++k) {
      const auto i = static_cast<size_t>(order[static_cast<size_t>(k)].second);
      if (cluster.gpu_free_units(first + static_cast<GpuId>(i)) < req.claim_units) continue;
      milli[i] -= claim_milli;
      --left;
    }
  }
  return score_after(before, cpu_after, model, milli);
}

FgdModel::ShareChoice FgdModel::best_share(const ClusterState& cluster, const PodRequest& req,
                                           NodeId node) const {
  std::array<int, kMaxGpusPerNode> store{};
  const auto milli = free_milli(cluster, node, store);
  const int cap = cluster.capacity_units();
  const GpuId first = cluster.first_gpu(node);
  const uint16_t model = cluster.model(node);
  const int64_t cpu_after = cluster.cpu_free(node) - req.cpu_milli;
  const double before = node_fragmentation(target_, cluster.cpu_free(node), model, milli);
  ShareChoice best;
  for (size_t i = 0; i < milli.size(); ++i) {
    const int units = cluster.gpu_free_units(first + static_cast<GpuId>(i));
    if (units < req.claim_units) continue;
    // A GPU as free as an earlier one scores the same and would not displace it.
    bool seen = false;
    for (size_t j = 0; j < i && !seen; ++j)
      seen = cluster.gpu_free_units(first + static_cast<GpuId>(j)) == units;
    if (seen) continue;
    const int saved = milli[i];
    milli[i] = to_milli(units - req.claim_units, cap);
    const int64_t s = score_after(before, cpu_after, model, milli);
    milli[i] = saved;
    if (s > best.score) best = {s, static_cast<int>(i)};  // strict: the first GPU keeps a tie
  }
  return best;
}

int FgdModel::best_gpu(const ClusterState& cluster, const PodRequest& req, NodeId node) const {
  return best_share(cluster, req, node).gpu;
}

}  // namespace slicelab
