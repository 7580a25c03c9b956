#include "sim/topology/builtin_topologies.h"

#include <charconv>
#include <vector>

namespace slicelab {
namespace {

using Matrix = std::vector<std::vector<GpuLink>>;

Matrix filled(int n, LinkKind kind) {
  return Matrix(static_cast<size_t>(n), std::vector<GpuLink>(static_cast<size_t>(n), {kind, 0, 0}));
}

void set(Matrix& m, int a, int b, GpuLink link) {
  m[static_cast<size_t>(a)][static_cast<size_t>(b)] = link;
  m[static_cast<size_t>(b)][static_cast<size_t>(a)] = link;
}

GpuLink nvlink(int links) {
  return {LinkKind::kNvLink, links, 0};
}

// Every pair joined through NVSwitch. Modelled on H100 SXM5 (DGX/HGX H100): 18 NVLinks per
// GPU, all into the switches, which nvidia-smi reports as NV18 between every pair.
std::shared_ptr<const GpuTopology> nvswitch(int n) {
  Matrix m = filled(n, LinkKind::kCrossCpu);
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) set(m, a, b, nvlink(18));
  return std::make_shared<const GpuTopology>("nvswitch-" + std::to_string(n), m);
}

// DGX-1 with V100: two fully NVLinked quads {0,1,2,3} and {4,5,6,7} joined by 0-4, 1-5, 2-6,
// 3-7; six links per GPU. Doubled links (NV2): 0-3, 0-4, 1-2, 1-5, 2-3, 4-7, 5-6, 6-7; the
// other NVLinked pairs have one. Pairs without NVLink sit on different sockets (SYS), as
// nvidia-smi topo -m prints it on a DGX-1V.
std::shared_ptr<const GpuTopology> hybrid_cube_mesh_8() {
  Matrix m = filled(8, LinkKind::kCrossCpu);
  const int two[][2] = {{0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3}, {4, 7}, {5, 6}, {6, 7}};
  const int one[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 6}, {3, 7}, {4, 5}, {4, 6}, {5, 7}};
  for (const auto& p : two) set(m, p[0], p[1], nvlink(2));
  for (const auto& p : one) set(m, p[0], p[1], nvlink(1));
  return std::make_shared<const GpuTopology>("hybrid-cube-mesh-8", m);
}

// Two sockets, two PCIe switches per socket, n/4 GPUs per switch (n a multiple of 4): same
// switch PIX (50), other switch on the same socket through its host bridge PHB (30), other
// socket SYS (10). No NVLink.
std::shared_ptr<const GpuTopology> pcie_dual_socket(int n) {
  Matrix m = filled(n, LinkKind::kCrossCpu);
  const int per_switch = n / 4;
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      if (a / per_switch == b / per_switch)
        set(m, a, b, {LinkKind::kSingleSwitch, 0, 0});
      else if (a / (2 * per_switch) == b / (2 * per_switch))
        set(m, a, b, {LinkKind::kHostBridge, 0, 0});
    }
  return std::make_shared<const GpuTopology>("pcie-dual-socket-" + std::to_string(n), m);
}

// PCIe cards joined in pairs by NVLink bridges: GPUs 2k and 2k+1, modelled on A100 PCIe with
// three bridges (NV12). The first half of the GPUs hangs off socket 0 (other pairs NODE, 20),
// the second half off socket 1 (SYS, 10).
std::shared_ptr<const GpuTopology> nvlink_pairs(int n) {
  Matrix m = filled(n, LinkKind::kCrossCpu);
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      if (a / 2 == b / 2)
        set(m, a, b, nvlink(12));
      else if ((a < n / 2) == (b < n / 2))
        set(m, a, b, {LinkKind::kSameCpu, 0, 0});
    }
  return std::make_shared<const GpuTopology>("nvlink-pairs-" + std::to_string(n), m);
}

// "prefix-N" -> N, or 0 when the name does not have that form.
int sized(std::string_view name, std::string_view prefix) {
  if (name.substr(0, prefix.size()) != prefix) return 0;
  const std::string_view digits = name.substr(prefix.size());
  int n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty() ||
      digits[0] == '0')
    return 0;
  return n;
}

}  // namespace

std::shared_ptr<const GpuTopology> builtin_topology(std::string_view name) {
  if (name == "hybrid-cube-mesh-8") return hybrid_cube_mesh_8();
  if (const int n = sized(name, "nvswitch-"); n >= 2 && n <= 64) return nvswitch(n);
  if (const int n = sized(name, "pcie-dual-socket-"); n >= 4 && n <= 64 && n % 4 == 0)
    return pcie_dual_socket(n);
  if (const int n = sized(name, "nvlink-pairs-"); n >= 2 && n <= 64 && n % 2 == 0)
    return nvlink_pairs(n);
  return nullptr;
}

std::string builtin_topology_names() {
  return "hybrid-cube-mesh-8, nvlink-pairs-<N> (N even), nvswitch-<N> (N 2..64), "
         "pcie-dual-socket-<N> (N a multiple of 4)";
}

}  // namespace slicelab
