// A node's GPU interconnect as a Boost.Graph graph: GPUs are vertices, every pair is an edge
// weighted by the pair score NVIDIA's device-plugin allocator uses (PCIe level or NVLink count).
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab {

// Pair scores of NVIDIA's go-gpuallocator (best-effort policy), one per link kind.
enum class LinkKind : uint8_t {
  kCrossCpu,      // SYS: across the SMP interconnect between sockets
  kSameCpu,       // NODE: between host bridges of one NUMA node
  kHostBridge,    // PHB: through one PCIe host bridge
  kMultiSwitch,   // PXB: through several PCIe switches, no host bridge
  kSingleSwitch,  // PIX: through one PCIe switch
  kSameBoard,     // both GPUs on one board (dual-GPU cards)
  kNvLink,        // NVLink; the score grows with the number of links
};

int link_score(LinkKind kind, int nvlinks = 0);  // 10, 20, 30, 40, 50, 60, or 100 per link
std::string_view link_label(LinkKind kind);      // the nvidia-smi spelling: SYS, NODE, ... NV

struct GpuLink {
  LinkKind kind = LinkKind::kCrossCpu;
  int nvlinks = 0;  // > 0 only for kNvLink
  int score = 0;    // link_score(kind, nvlinks)
};

// Undirected; vertex i is the node's local GPU i. vecS keeps vertex descriptors equal to
// GPU indices, so graph algorithms' results index straight into per-GPU arrays.
using TopologyGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS,
                                            boost::no_property, GpuLink>;

class GpuTopology {
 public:
  // Builds from a complete description: links[i][j] for i != j, symmetric (checked: throws
  // std::invalid_argument). The diagonal is ignored.
  GpuTopology(std::string name, const std::vector<std::vector<GpuLink>>& links);

  const std::string& name() const { return name_; }
  int gpu_count() const { return n_; }
  const TopologyGraph& graph() const { return graph_; }

  // Pair score, read from a dense copy of the graph's edge weights: the picker calls this
  // in its inner loop, where an edge lookup in the adjacency list would dominate.
  int score(int a, int b) const {
    return a == b ? 0
                  : scores_[(static_cast<size_t>(a) * static_cast<size_t>(n_)) +
                            static_cast<size_t>(b)];
  }
  const GpuLink& link(int a, int b) const;

  // Sum of pair scores over all pairs of `gpus` (local indices).
  int64_t total_score(std::span<const int> gpus) const;
  // The highest total_score of any k GPUs of an empty node (0 for k < 2). Precomputed.
  int64_t best_total(int k) const;

  // NVLink islands: component[i] is the id of GPU i's component in the subgraph of NVLink
  // edges (Boost connected_components); GPUs without NVLink are islands of one.
  const std::vector<int>& nvlink_component() const { return nvlink_component_; }
  int nvlink_component_count() const { return nvlink_component_count_; }

 private:
  std::string name_;
  int n_ = 0;
  TopologyGraph graph_;
  std::vector<int> scores_;
  std::vector<int64_t> best_total_;
  std::vector<int> nvlink_component_;
  int nvlink_component_count_ = 0;
};

// Exact search for the k-subset of `candidates` (local GPU indices, ascending) with the
// highest total pair score; on equal totals, the lowest `tie_key` sum, then the
// lexicographically first set. Exact (branch and bound) up to kExactLimit candidates, greedy
// above. Writes k indices to out (ascending); returns the total, or -1 when k > candidates.
inline constexpr int kExactLimit = 16;
int64_t best_subset(const GpuTopology& topo, std::span<const int> candidates, int k,
                    std::span<const int64_t> tie_key, std::span<int> out);

// Communication quality of a multi-GPU placement: the set's total pair score divided by the
// best total any set of that size reaches on an empty node of this topology. 1.0 = as good
// as it gets; 1.0 for fewer than two GPUs. Throws std::invalid_argument on an index out of
// range or repeated.
double communication_quality(const GpuTopology& topo, std::span<const int> local_gpus);

}  // namespace slicelab
