#include "sim/gpu_catalog.h"

#include <fmt/format.h>

#include <algorithm>

namespace slicelab {

GpuCatalog GpuCatalog::builtin() {
  // Figures from shared/reference/gpus.md (public datasheets). Memory in MiB as the
  // device reports it to CUDA (marketing GB x 1024); prices are illustrative.
  GpuCatalog c;
  c.models_ = {
      {"P100", 16384, 56, 732, 10.6, false, 0.15, 1.46},
      {"V100-16GB", 16384, 80, 900, 15.7, false, 0.40, 2.48},
      {"V100-32GB", 32768, 80, 900, 15.7, false, 0.40, 2.75},
      {"T4", 15360, 40, 320, 8.1, false, 0.20, 0.35},
      {"A10", 24576, 72, 600, 31.2, false, 0.40, 0.75},
      {"A30", 24576, 56, 933, 10.3, true, 0.50, 0.90},
      {"L4", 23034, 58, 300, 30.3, false, 0.35, 0.70},
      {"A100-40GB", 40960, 108, 1555, 19.5, true, 0.95, 2.93},
      {"A100-80GB", 81920, 108, 2039, 19.5, true, 1.00, 3.67},
      {"H100-80GB", 81559, 132, 3350, 67.0, true, 2.20, 6.98},
      {"H200", 143771, 132, 4800, 67.0, true, 2.50, 8.50},
  };
  return c;
}

const GpuModel* GpuCatalog::find(std::string_view name) const {
  const auto idx = index_of(name);
  return idx ? &models_[*idx] : nullptr;
}

std::optional<size_t> GpuCatalog::index_of(std::string_view name) const {
  for (size_t i = 0; i < models_.size(); ++i)
    if (models_[i].name == name) return i;
  return std::nullopt;
}

void GpuCatalog::upsert(GpuModel model) {
  if (auto idx = index_of(model.name)) {
    models_[*idx] = std::move(model);
  } else {
    models_.push_back(std::move(model));
  }
}

std::string GpuCatalog::names() const {
  std::vector<std::string> n;
  n.reserve(models_.size());
  for (const auto& m : models_) n.push_back(m.name);
  std::sort(n.begin(), n.end());
  return fmt::format("{}", fmt::join(n, ", "));
}

}  // namespace slicelab
