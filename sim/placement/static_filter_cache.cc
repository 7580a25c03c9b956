#include "sim/placement/static_filter_cache.h"

#include <bit>
#include <numeric>

namespace slicelab {

size_t StaticFilterCache::ShapeHash::operator()(const StaticShape& s) const {
  uint64_t h = s.model_mask * 0x9E3779B97F4A7C15ULL;
  h ^= static_cast<uint64_t>(s.gpu_memory_mib) + 0x632BE59BD9B4E019ULL + (h << 6) + (h >> 2);
  h ^= static_cast<uint64_t>(s.gpu_count) + 0x8CB92BA72F3D8DD7ULL + (h << 6) + (h >> 2);
  return static_cast<size_t>(h);
}

void StaticFilterCache::reset(const std::vector<const Filter*>& filters) {
  filters_.clear();
  for (const Filter* f : filters)
    if (f->static_part() != StaticPart::kNone) filters_.push_back(f);
  cluster_ = nullptr;
  node_count_ = 0;
  index_.clear();
  entries_.clear();
}

const StaticFilterCache::Entry* StaticFilterCache::find_or_add(const ClusterState& cluster,
                                                               const StaticShape& shape) {
  if (&cluster != cluster_ || cluster.node_count() != node_count_) {
    cluster_ = &cluster;
    node_count_ = cluster.node_count();
    index_.clear();
    entries_.clear();
  }
  if (const auto it = index_.find(shape); it != index_.end()) return &entries_[it->second];
  if (entries_.size() >= kMaxShapes) return nullptr;
  scratch_.resize(node_count_);
  std::iota(scratch_.begin(), scratch_.end(), NodeId{0});
  for (const Filter* f : filters_) f->static_filter(cluster, shape, scratch_);
  Entry e;
  if (scratch_.size() != node_count_) {
    e.passes.assign((node_count_ + 63) / 64, 0);
    for (const NodeId n : scratch_) e.passes[n / 64] |= uint64_t{1} << (n % 64);
  }
  index_.emplace(shape, static_cast<uint32_t>(entries_.size()));
  entries_.push_back(std::move(e));
  return &entries_.back();
}

bool StaticFilterCache::narrow(const ClusterState& cluster, const PodRequest& req,
                               std::vector<NodeId>& nodes) {
  if (filters_.empty()) return false;
  const Entry* e = find_or_add(cluster, StaticShape::of(req));
  if (e == nullptr) return false;
  const std::vector<uint64_t>& passes = e->passes;
  if (passes.empty()) return true;
  if (nodes.size() == node_count_) {
    // The whole cluster: rebuilt from the bits, a word at a time (capacity is kept: no allocation).
    nodes.clear();
    for (size_t w = 0; w < passes.size(); ++w)
      for (uint64_t bits = passes[w]; bits != 0; bits &= bits - 1)
        nodes.push_back(static_cast<NodeId>(w * 64 + static_cast<size_t>(std::countr_zero(bits))));
  } else {  // a pre-filter narrowed the set already: keep what both allow
    size_t kept = 0;
    for (const NodeId n : nodes) {
      nodes[kept] = n;
      kept += (passes[n / 64] >> (n % 64)) & 1U;
    }
    nodes.resize(kept);
  }
  return true;
}

}  // namespace slicelab
