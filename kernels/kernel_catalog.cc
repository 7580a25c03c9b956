#include "kernels/kernel_catalog.h"

namespace slicelab {
namespace {

// Sizes here are the ones micro_kernels.cu uses; kept together so the figures cannot drift.
constexpr double kTriadElems = 16.0 * 1024 * 1024;  // three float arrays of 64 MiB
constexpr double kFmaThreads = 80.0 * 1024;         // 80 blocks of 1024 threads
constexpr double kFmaIters = 4096;
constexpr double kMixElems = 1024.0 * 1024;

const std::vector<KernelInfo> kCatalog{
    KernelInfo{"launch-storm", "empty kernels of one warp back to back: the launch path's cost",
               "one kernel launch", 0, 0},
    KernelInfo{"fma", "register-resident fused multiply-add chains: SM-bound",
               "one kernel of 81920 threads x 4096 FMA x 4 chains", 0,
               kFmaThreads* kFmaIters * 4 * 2},
    KernelInfo{"triad", "STREAM triad a = b + s*c on 16M floats: memory-bandwidth-bound",
               "one triad over 16M floats", kTriadElems * 3 * 4, kTriadElems * 2},
    KernelInfo{"alloc-churn", "cudaMalloc and cudaFree of 64 MiB in a loop: the allocation path",
               "one 64 MiB allocation and free", 64.0 * 1024 * 1024, 0},
    KernelInfo{"graph-replay", "a captured CUDA graph of 20 tiny kernels, replayed",
               "one graph launch (20 kernels)", 0, 0},
    KernelInfo{"inference-mix",
               "8 short kernels over 1M floats, a sync, then a 200 us host gap: an inference loop",
               "one request (8 kernels + 200 us gap)", kMixElems * 8 * 2 * 4, kMixElems * 8 * 2},
};

}  // namespace

const std::vector<KernelInfo>& kernel_catalog() {
  return kCatalog;
}

std::optional<KernelInfo> find_kernel(std::string_view name) {
  for (const KernelInfo& k : kCatalog)
    if (k.name == name) return k;
  return std::nullopt;
}

std::string kernel_names() {
  std::string s;
  for (const KernelInfo& k : kCatalog) {
    if (!s.empty()) s += ", ";
    s += k.name;
  }
  return s;
}

}  // namespace slicelab
