#include "sim/modes/vm/vgpu_profiles.h"

#include <array>

namespace slicelab {
namespace {

// NVIDIA Virtual GPU Software User Guide, "Virtual GPU Types for Supported GPUs", C-series
// (compute) time-sliced types; docs/reference/vgpu-profiles.md gives the sources.
constexpr std::array<VgpuProfile, 7> kA100_80{{{"A100D-80C", 80, 1},
                                               {"A100D-40C", 40, 2},
                                               {"A100D-20C", 20, 4},
                                               {"A100D-16C", 16, 5},
                                               {"A100D-10C", 10, 8},
                                               {"A100D-8C", 8, 10},
                                               {"A100D-4C", 4, 20}}};
constexpr std::array<VgpuProfile, 6> kA100_40{{{"A100-40C", 40, 1},
                                               {"A100-20C", 20, 2},
                                               {"A100-10C", 10, 4},
                                               {"A100-8C", 8, 5},
                                               {"A100-5C", 5, 8},
                                               {"A100-4C", 4, 10}}};
constexpr std::array<VgpuProfile, 5> kA30{
    {{"A30-24C", 24, 1}, {"A30-12C", 12, 2}, {"A30-8C", 8, 3}, {"A30-6C", 6, 4}, {"A30-4C", 4, 6}}};
constexpr std::array<VgpuProfile, 5> kA10{
    {{"A10-24C", 24, 1}, {"A10-12C", 12, 2}, {"A10-8C", 8, 3}, {"A10-6C", 6, 4}, {"A10-4C", 4, 6}}};
constexpr std::array<VgpuProfile, 5> kL4{
    {{"L4-24C", 24, 1}, {"L4-12C", 12, 2}, {"L4-8C", 8, 3}, {"L4-6C", 6, 4}, {"L4-4C", 4, 6}}};
constexpr std::array<VgpuProfile, 7> kL40S{{{"L40S-48C", 48, 1},
                                            {"L40S-24C", 24, 2},
                                            {"L40S-16C", 16, 3},
                                            {"L40S-12C", 12, 4},
                                            {"L40S-8C", 8, 6},
                                            {"L40S-6C", 6, 8},
                                            {"L40S-4C", 4, 12}}};
constexpr std::array<VgpuProfile, 7> kH100_80{{{"H100XM-80C", 80, 1},
                                               {"H100XM-40C", 40, 2},
                                               {"H100XM-20C", 20, 4},
                                               {"H100XM-16C", 16, 5},
                                               {"H100XM-10C", 10, 8},
                                               {"H100XM-8C", 8, 10},
                                               {"H100XM-4C", 4, 20}}};
constexpr std::array<VgpuProfile, 3> kT4{{{"T4-16C", 16, 1}, {"T4-8C", 8, 2}, {"T4-4C", 4, 4}}};

constexpr std::array<VgpuTable, 8> kTables{{{"A100-80GB", kA100_80},
                                            {"A100-40GB", kA100_40},
                                            {"A30", kA30},
                                            {"A10", kA10},
                                            {"L4", kL4},
                                            {"L40S", kL40S},
                                            {"H100-80GB", kH100_80},
                                            {"T4", kT4}}};

}  // namespace

std::string_view VgpuProfile::size() const {
  const size_t dash = name.rfind('-');
  return dash == std::string_view::npos ? name : name.substr(dash + 1);
}

std::span<const VgpuTable> vgpu_tables() {
  return kTables;
}

const VgpuTable* vgpu_table_for(std::string_view gpu_model) {
  for (const VgpuTable& t : kTables)
    if (t.gpu == gpu_model) return &t;
  return nullptr;
}

bool is_known_vgpu_size(std::string_view size) {
  for (const VgpuTable& t : kTables)
    for (const VgpuProfile& p : t.profiles)
      if (p.size() == size) return true;
  return false;
}

std::string vgpu_size_names(const VgpuTable& table) {
  std::string out;
  for (const VgpuProfile& p : table.profiles) {
    if (!out.empty()) out += ", ";
    out += p.size();
  }
  return out;
}

}  // namespace slicelab
