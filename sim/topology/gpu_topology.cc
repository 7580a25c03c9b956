#include "sim/topology/gpu_topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace slicelab {

int link_score(LinkKind kind, int nvlinks) {
  switch (kind) {
    case LinkKind::kCrossCpu:
      return 10;
    case LinkKind::kSameCpu:
      return 20;
    case LinkKind::kHostBridge:
      return 30;
    case LinkKind::kMultiSwitch:
      return 40;
    case LinkKind::kSingleSwitch:
      return 50;
    case LinkKind::kSameBoard:
      return 60;
    case LinkKind::kNvLink:
      return 100 * nvlinks;
  }
  return 0;
}

std::string_view link_label(LinkKind kind) {
  switch (kind) {
    case LinkKind::kCrossCpu:
      return "SYS";
    case LinkKind::kSameCpu:
      return "NODE";
    case LinkKind::kHostBridge:
      return "PHB";
    case LinkKind::kMultiSwitch:
      return "PXB";
    case LinkKind::kSingleSwitch:
      return "PIX";
    case LinkKind::kSameBoard:
      return "BOARD";
    case LinkKind::kNvLink:
      return "NV";
  }
  return "?";
}

namespace {

// Edge filter for the NVLink subgraph.
struct NvLinkOnly {
  const TopologyGraph* g = nullptr;
  bool operator()(TopologyGraph::edge_descriptor e) const {
    return (*g)[e].kind == LinkKind::kNvLink;
  }
};

// Branch and bound over k-subsets of the candidates in index order. The first set found
// among equals is the lexicographically first, because the search visits sets in that order
// and only a strictly better (score, tie) replaces the incumbent.
class SubsetSearch {
 public:
  SubsetSearch(const GpuTopology& topo, std::span<const int> cand, int k,
               std::span<const int64_t> tie)
      : topo_(topo), cand_(cand), tie_(tie), k_(k), chosen_(static_cast<size_t>(k)) {
    const size_t m = cand.size();
    for (size_t i = 0; i < m; ++i)
      for (size_t j = i + 1; j < m; ++j)
        max_pair_ = std::max(max_pair_, topo.score(cand[i], cand[j]));
    min_tie_ = tie.empty() ? 0 : *std::min_element(tie.begin(), tie.end());
  }

  int64_t run(std::span<int> out) {
    dfs(0, 0, 0, 0);
    std::copy(best_.begin(), best_.end(), out.begin());
    return best_score_;
  }

 private:
  int64_t tie_of(size_t i) const { return tie_.empty() ? 0 : tie_[i]; }

  void dfs(size_t pos, int depth, int64_t score, int64_t tie) {
    if (depth == k_) {
      if (score > best_score_ || (score == best_score_ && tie < best_tie_)) {
        best_score_ = score;
        best_tie_ = tie;
        best_.assign(chosen_.begin(), chosen_.end());
      }
      return;
    }
    const int64_t r = k_ - depth;
    if (static_cast<int64_t>(cand_.size() - pos) < r) return;
    // Every pair still to come scores at most max_pair_; every tie key is at least min_tie_.
    const int64_t pairs_left = depth * r + r * (r - 1) / 2;
    const int64_t upper = score + pairs_left * max_pair_;
    if (upper < best_score_) return;
    if (upper == best_score_ && tie + r * min_tie_ >= best_tie_) return;
    for (size_t i = pos; i < cand_.size(); ++i) {
      if (static_cast<int64_t>(cand_.size() - i) < r) break;
      int64_t gain = 0;
      for (int d = 0; d < depth; ++d)
        gain += topo_.score(cand_[i], chosen_[static_cast<size_t>(d)]);
      chosen_[static_cast<size_t>(depth)] = cand_[i];
      dfs(i + 1, depth + 1, score + gain, tie + tie_of(i));
    }
  }

  const GpuTopology& topo_;
  std::span<const int> cand_;
  std::span<const int64_t> tie_;
  int k_;
  int max_pair_ = 0;
  int64_t min_tie_ = 0;
  std::vector<int> chosen_, best_;
  int64_t best_score_ = -1;
  int64_t best_tie_ = std::numeric_limits<int64_t>::max();
};

// Above kExactLimit candidates: seed with the first GPU, then keep adding the candidate with
// the largest gain (ties: lower tie key, lower index). Good on the regular layouts of real
// boards, not guaranteed optimal.
int64_t greedy_subset(const GpuTopology& topo, std::span<const int> cand, int k,
                      std::span<const int64_t> tie, std::span<int> out) {
  const size_t m = cand.size();
  std::vector<bool> used(m, false);
  std::vector<int64_t> gain(m, 0);
  int64_t total = 0;
  for (int step = 0; step < k; ++step) {
    size_t pick = m;
    for (size_t i = 0; i < m; ++i) {
      if (used[i]) continue;
      if (pick == m || gain[i] > gain[pick] ||
          (gain[i] == gain[pick] && !tie.empty() && tie[i] < tie[pick]))
        pick = i;
    }
    used[pick] = true;
    total += gain[pick];
    out[static_cast<size_t>(step)] = cand[pick];
    for (size_t i = 0; i < m; ++i)
      if (!used[i]) gain[i] += topo.score(cand[i], cand[pick]);
  }
  std::sort(out.begin(), out.begin() + k);
  return total;
}

}  // namespace

GpuTopology::GpuTopology(std::string name, const std::vector<std::vector<GpuLink>>& links)
    : name_(std::move(name)), n_(static_cast<int>(links.size())), graph_(links.size()) {
  if (n_ < 1 || n_ > 64)
    throw std::invalid_argument(fmt::format("a topology needs 1 to 64 GPUs, not {}", n_));
  scores_.assign(static_cast<size_t>(n_ * n_), 0);
  for (int i = 0; i < n_; ++i) {
    if (static_cast<int>(links[static_cast<size_t>(i)].size()) != n_)
      throw std::invalid_argument(fmt::format("row {} has {} entries, not {}", i,
                                              links[static_cast<size_t>(i)].size(), n_));
  }
  for (int i = 0; i < n_; ++i) {
    for (int j = i + 1; j < n_; ++j) {
      GpuLink a = links[static_cast<size_t>(i)][static_cast<size_t>(j)];
      const GpuLink& b = links[static_cast<size_t>(j)][static_cast<size_t>(i)];
      if (a.kind != b.kind || a.nvlinks != b.nvlinks)
        throw std::invalid_argument(
            fmt::format("GPU{} to GPU{} differs from GPU{} to GPU{}", i, j, j, i));
      a.score = link_score(a.kind, a.nvlinks);
      boost::add_edge(static_cast<size_t>(i), static_cast<size_t>(j), a, graph_);
    }
  }
  for (const auto e : boost::make_iterator_range(boost::edges(graph_))) {
    const auto s = static_cast<int>(boost::source(e, graph_));
    const auto t = static_cast<int>(boost::target(e, graph_));
    scores_[static_cast<size_t>(s * n_ + t)] = graph_[e].score;
    scores_[static_cast<size_t>(t * n_ + s)] = graph_[e].score;
  }

  const boost::filtered_graph<TopologyGraph, NvLinkOnly> nv(graph_, NvLinkOnly{&graph_});
  nvlink_component_.assign(static_cast<size_t>(n_), 0);
  nvlink_component_count_ = static_cast<int>(boost::connected_components(
      nv, boost::make_iterator_property_map(nvlink_component_.begin(),
                                            boost::get(boost::vertex_index, nv))));

  std::vector<int> all(static_cast<size_t>(n_));
  std::iota(all.begin(), all.end(), 0);
  std::vector<int> out(static_cast<size_t>(n_));
  best_total_.assign(static_cast<size_t>(n_) + 1, 0);
  for (int k = 2; k <= n_; ++k)
    best_total_[static_cast<size_t>(k)] = best_subset(*this, all, k, {}, out);
}

const GpuLink& GpuTopology::link(int a, int b) const {
  const auto [e, found] = boost::edge(static_cast<size_t>(a), static_cast<size_t>(b), graph_);
  if (!found) throw std::invalid_argument(fmt::format("no link between GPU{} and GPU{}", a, b));
  return graph_[e];
}

int64_t GpuTopology::total_score(std::span<const int> gpus) const {
  int64_t total = 0;
  for (size_t i = 0; i < gpus.size(); ++i)
    for (size_t j = i + 1; j < gpus.size(); ++j) total += score(gpus[i], gpus[j]);
  return total;
}

int64_t GpuTopology::best_total(int k) const {
  if (k < 2 || k > n_) return 0;
  return best_total_[static_cast<size_t>(k)];
}

int64_t best_subset(const GpuTopology& topo, std::span<const int> candidates, int k,
                    std::span<const int64_t> tie_key, std::span<int> out) {
  if (k < 0 || static_cast<size_t>(k) > candidates.size()) return -1;
  if (k == 0) return 0;
  if (candidates.size() > static_cast<size_t>(kExactLimit))
    return greedy_subset(topo, candidates, k, tie_key, out);
  return SubsetSearch(topo, candidates, k, tie_key).run(out);
}

double communication_quality(const GpuTopology& topo, std::span<const int> local_gpus) {
  uint64_t seen = 0;
  for (const int g : local_gpus) {
    if (g < 0 || g >= topo.gpu_count())
      throw std::invalid_argument(
          fmt::format("GPU {} is not on a {}-GPU topology", g, topo.gpu_count()));
    if (seen & (uint64_t{1} << g))
      throw std::invalid_argument(fmt::format("GPU {} appears twice", g));
    seen |= uint64_t{1} << g;
  }
  if (local_gpus.size() < 2) return 1.0;
  const int64_t best = topo.best_total(static_cast<int>(local_gpus.size()));
  if (best <= 0) return 1.0;
  // Clamped: above kExactLimit GPUs the best total comes from a greedy search and may be
  // beaten by the placement itself.
  return std::min(1.0,
                  static_cast<double>(topo.total_score(local_gpus)) / static_cast<double>(best));
}

}  // namespace slicelab
