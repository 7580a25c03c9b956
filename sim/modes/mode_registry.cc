// The registry of sharing modes. To add one: put its SharingMode, settings, reader and run state
// in its own folder under sim/modes/, include its header here and add one line to kModes
// (docs/adding-a-sharing-mode.md).
#include "sim/modes/mode_registry.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "sim/modes/dra/dra_scenario.h"
#include "sim/modes/gpu_share/gpu_share.h"
#include "sim/modes/hami/hami_scenario.h"
#include "sim/modes/interposer/interposer_share.h"
#include "sim/modes/mig/mig_scenario.h"
#include "sim/modes/mps/mps.h"
#include "sim/modes/plain_modes_reader.h"
#include "sim/modes/time_slice/time_slice.h"
#include "sim/modes/vm/vm_scenario.h"
#include "sim/modes/whole_card/whole_card.h"
#include "sim/sharing/device_plugin_sharing.h"

namespace slicelab {
namespace {

// clang-format off
const SharingModeEntry kModes[] = {
    {"whole-card", "one pod per GPU: no sharing", read_plain_sharing, nullptr, make_whole_card_mode, nullptr},
    {"time-slice", "N replicas per GPU taking turns, with a context-switch overhead", read_plain_sharing, nullptr, make_time_slice_mode, nullptr},
    {"gpu-share", "pods claim gpu_milli of a GPU (1000 per GPU), no isolation", read_plain_sharing, nullptr, make_gpu_share_mode, nullptr},
    {"mig", "hardware MIG instances, static layout or dynamic re-partitioning (docs/mig.md)", read_mig_sharing, check_mig_policies, make_mig_mode, nullptr},
    {"mps", "CUDA MPS clients with thread-share caps and memory limits, shared faults", read_plain_sharing, nullptr, make_mps_mode, nullptr},
    {"interposer", "CUDA-call interposer enforcing compute caps and memory limits per pod", read_plain_sharing, nullptr, make_interposer_mode, nullptr},
    {"passthrough", "whole GPUs given to VMs (VFIO): one VM per GPU, started after its boot", read_vm_mode, check_vm_policies, make_passthrough_mode, nullptr},
    {"vgpu", "NVIDIA vGPU: fixed profiles per GPU, time-sliced by a vGPU scheduler (docs/vm-sharing.md)", read_vm_mode, check_vm_policies, make_vgpu_mode, nullptr},
    {"hami", "HAMi vGPUs: slots, memory and cores per GPU, its filter and scores (docs/hami.md)", read_hami_sharing, nullptr, make_hami_mode, check_hami_placement},
    {"dra", "Kubernetes DRA: structured allocation over ResourceSlices, GpuConfig sharing (docs/dra.md)", read_dra_sharing, load_dra_objects, make_dra_mode, nullptr},
};
// clang-format on

}  // namespace

std::span<const SharingModeEntry> sharing_modes() {
  return kModes;
}

const SharingModeEntry* find_sharing_mode(std::string_view name) {
  for (const auto& m : kModes)
    if (m.name == name) return &m;
  return nullptr;
}

std::string sharing_mode_names() {
  std::vector<std::string_view> names;
  for (const auto& m : kModes) names.push_back(m.name);
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

void read_mode_settings(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                        SharingConfig& config) {
  // IsDefined first: yaml-cpp throws an unlocated InvalidNode when asked anything else about the
  // node of a missing key; the plain reader reports a missing or unknown mode at the mapping.
  const YAML::Node m = node.IsMap() ? node["mode"] : node;
  const SharingModeEntry* mode =
      m.IsDefined() && m.IsScalar() ? find_sharing_mode(m.Scalar()) : nullptr;
  if (!mode) {
    read_plain_sharing(yaml, node, path, config);
    return;
  }
  config.kind = std::string(mode->name);
  mode->read(yaml, node, path, config);
}

void check_mode_placement(const YamlReader& yaml, const YAML::Node& at, std::string_view path,
                          const PlacementConfig& placement, const SharingConfig& sharing) {
  for (const auto& m : kModes)
    if (m.check_placement) m.check_placement(yaml, at, path, placement, sharing);
}

void apply_calibration(const Calibration& cal, SharingConfig& config) {
  config.interference = cal.for_mode(config.kind);
  if (config.kind != "interposer") return;
  const auto own = config.mode_settings<InterposerSettings>();
  if (own && own->launch_overhead_ns) return;  // the policy's own overhead wins
  auto s = std::make_shared<InterposerSettings>(own ? *own : InterposerSettings{});
  s->launch_overhead_ns = cal.interposer_launch_overhead_ns;
  config.set_mode_settings(std::move(s));
}

std::unique_ptr<SharingMode> make_sharing_mode(const SharingConfig& config) {
  const SharingModeEntry* mode = find_sharing_mode(config.kind);
  if (!mode) throw std::invalid_argument("unknown sharing mode " + config.kind);
  if (config.device_plugin)
    return std::make_unique<DevicePluginSharing>(mode->make(config), config.device_plugin);
  return mode->make(config);
}

}  // namespace slicelab
