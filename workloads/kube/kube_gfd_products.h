// GPU feature discovery's product label (nvidia.com/gpu.product: "NVIDIA-A100-SXM4-80GB",
// "NVIDIA-L4", "Tesla-T4") mapped to a model of the GPU catalog, by family and memory.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace slicelab {

// The GPU catalog's model for `product`, as an index into `models`, the catalog's model names in
// its order (GpuCatalog::models(); the table needs their names only, so it sits with the
// readers, below the simulator that owns the catalog). `memory_mib` is the nvidia.com/gpu.memory
// label (0 when absent) and decides between the 40 and 80 GB A100, or the 16 and 32 GB V100, when
// the product does not say. GFD's suffixes are ignored: "-SHARED" (time-slicing or MPS replicas)
// and "-MIG-<profile>" (single MIG strategy). On failure returns nullopt and sets `error` to a
// sentence with a "did you mean" over the catalog's models.
std::optional<size_t> kube_gfd_product_model(std::string_view product, int64_t memory_mib,
                                             std::span<const std::string> models,
                                             std::string& error);

// The product names (one per family) the mapping knows, for docs and messages.
std::string kube_gfd_known_products();

}  // namespace slicelab
