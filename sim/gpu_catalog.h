// GPU models the simulator knows: datasheet figures plus relative speed and an hourly price.
// A scenario starts from the built-in catalog and may add models or override fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab {

struct GpuModel {
  std::string name;
  int64_t memory_mib = 0;
  int sm_count = 0;
  double memory_bandwidth_gbps = 0;
  double fp32_tflops = 0;
  bool mig_capable = false;
  // Throughput relative to A100-80GB on mixed training work; used only when the scenario
  // turns speed scaling on. Illustrative defaults (docs/scenario-format.md#gpu-models).
  double relative_speed = 1.0;
  // Illustrative on-demand USD per GPU-hour; override with your own prices.
  double price_per_hour = 0.0;
};

class GpuCatalog {
 public:
  static GpuCatalog builtin();

  const GpuModel* find(std::string_view name) const;
  // Adds a model, or replaces the one with the same name, keeping its index.
  void upsert(GpuModel model);
  const std::vector<GpuModel>& models() const { return models_; }
  std::optional<size_t> index_of(std::string_view name) const;
  std::string names() const;  // "A10, A100-40GB, ..." for error messages

 private:
  std::vector<GpuModel> models_;
};

}  // namespace slicelab
