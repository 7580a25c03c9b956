// NVIDIA vGPU (C-series, time-sliced) profile tables per GPU model: each profile's frame buffer
// and how many fit one GPU, as docs/reference/vgpu-profiles.md lists them with their sources.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace slicelab {

struct VgpuProfile {
  std::string_view name;   // NVIDIA's type name, e.g. "A100D-10C"
  int framebuffer_gb = 0;  // as the type name and the table give it (GB, 1024 MiB each)
  int max_per_gpu = 0;

  int64_t framebuffer_mib() const { return int64_t{framebuffer_gb} * 1024; }
  // The size part of the name, "10C": how a scenario's `profile:` names it on any model.
  std::string_view size() const;
};

struct VgpuTable {
  std::string_view gpu;                   // catalog model name (sim/gpu_catalog.cc), or "L40S"
  std::span<const VgpuProfile> profiles;  // largest frame buffer first
};

// Capacity units of one GPU under vGPU: every max_per_gpu of every table divides it, so one
// vGPU of a type is exactly kVgpuUnitsPerGpu / max_per_gpu units.
inline constexpr int kVgpuUnitsPerGpu = 120;
// The most vGPUs any table puts on one GPU.
inline constexpr int kMaxVgpusPerGpu = 20;

std::span<const VgpuTable> vgpu_tables();
// The table of a catalog GPU model by its name, or nullptr when the model has none here.
const VgpuTable* vgpu_table_for(std::string_view gpu_model);
// True when some table has a profile of this size ("10C").
bool is_known_vgpu_size(std::string_view size);
// "24C, 12C, ..." of one table, for error messages.
std::string vgpu_size_names(const VgpuTable& table);

}  // namespace slicelab
