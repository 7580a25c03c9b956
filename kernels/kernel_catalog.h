// The micro-kernels' self-descriptions: name, what they stress, their unit of work and the bytes
// and flops one unit moves. Shared by the CUDA program, the harness and the local backend.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab {

struct KernelInfo {
  std::string_view name;
  std::string_view description;
  std::string_view work_unit;  // what one repetition is
  double bytes_per_unit = 0;   // device-memory traffic of one unit
  double flops_per_unit = 0;   // floating-point operations of one unit
};

// C++17 on purpose: nvcc compiles this header too.
const std::vector<KernelInfo>& kernel_catalog();
std::optional<KernelInfo> find_kernel(std::string_view name);
std::string kernel_names();  // "launch-storm, fma, ..." for messages

// Exit codes of slicelab-kernel (and of the CPU stand-in that mimics it).
inline constexpr int kKernelExitOk = 0;
inline constexpr int kKernelExitUsage = 2;
inline constexpr int kKernelExitNoGpu = 3;
inline constexpr int kKernelExitCudaError = 4;
inline constexpr int kKernelExitOutOfMemory = 5;

}  // namespace slicelab
