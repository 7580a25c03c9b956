// The registry of sharing modes. To add one: write its SharingMode in its own file, include it
// here and add one line to kModes (its settings go in SharingConfig and the scenario loader).
#include "sim/sharing/sharing_registry.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "sim/dra/dra_sharing.h"
#include "sim/mig/mig_sharing.h"
#include "sim/sharing/gpu_share.h"
#include "sim/sharing/hami_share.h"
#include "sim/sharing/interposer_share.h"
#include "sim/sharing/mps.h"
#include "sim/sharing/time_slice.h"
#include "sim/sharing/whole_card.h"
#include "sim/vm/passthrough.h"
#include "sim/vm/vgpu_sharing.h"

namespace slicelab {
namespace {

const SharingModeEntry kModes[] = {
    {"whole-card", "one pod per GPU: no sharing",
     [](const SharingConfig&) -> std::unique_ptr<SharingMode> {
       return std::make_unique<WholeCard>();
     }},
    {"time-slice", "N replicas per GPU taking turns, with a context-switch overhead",
     [](const SharingConfig& c) -> std::unique_ptr<SharingMode> {
       return std::make_unique<TimeSlice>(c.replicas, c.context_switch_overhead, c.interference);
     }},
    {"gpu-share", "pods claim gpu_milli of a GPU (1000 per GPU), no isolation",
     [](const SharingConfig&) -> std::unique_ptr<SharingMode> {
       return std::make_unique<GpuShare>();
     }},
    {"mig", "hardware MIG instances, static layout or dynamic re-partitioning (docs/mig.md)",
     [](const SharingConfig& c) -> std::unique_ptr<SharingMode> {
       if (!c.mig) throw std::invalid_argument("sharing mode mig needs its MIG settings");
       return std::make_unique<MigSharing>(c.mig);
     }},
    {"mps", "CUDA MPS clients with thread-share caps and memory limits, shared faults",
     [](const SharingConfig& c) -> std::unique_ptr<SharingMode> {
       return std::make_unique<Mps>(Mps::Config{c.mps_replicas, c.fault_propagation,
                                                c.client_fault_probability, c.interference});
     }},
    {"interposer", "CUDA-call interposer enforcing compute caps and memory limits per pod",
     [](const SharingConfig& c) -> std::unique_ptr<SharingMode> {
       return std::make_unique<InterposerShare>(InterposerShare::Config{
           c.launch_overhead_ns.value_or(SharingConfig::kDefaultLaunchOverheadNs),
           c.limiter_window_s, c.interference});
     }},
    {"passthrough", "whole GPUs given to VMs (VFIO): one VM per GPU, started after its boot",
     [](const SharingConfig& c) -> std::unique_ptr<SharingMode> {
       return std::make_unique<Passthrough>(c.vm ? c.vm->boot_s : VmSettings::kDefaultBootS);
     }},
    {"vgpu",
     "NVIDIA vGPU: fixed profiles per GPU, time-sliced by a vGPU scheduler (docs/vm-sharing.md)",
     [](const SharingConfig& c) -> std::unique_ptr<SharingMode> {
       return std::make_unique<VgpuSharing>(c.vm ? c.vm : std::make_shared<const VmSettings>(),
                                            c.interference);
     }},
    {"hami", "HAMi vGPUs: slots, memory and cores per GPU, its filter and scores (docs/hami.md)",
     [](const SharingConfig& c) -> std::unique_ptr<SharingMode> {
       return std::make_unique<HamiShare>(c.hami ? c.hami : std::make_shared<const HamiSettings>(),
                                          c.interference);
     }},
    {"dra",
     "Kubernetes DRA: structured allocation over ResourceSlices, GpuConfig sharing "
     "(docs/dra.md)",
     [](const SharingConfig& c) -> std::unique_ptr<SharingMode> {
       if (!c.dra) throw std::invalid_argument("sharing mode dra needs its DRA objects");
       return std::make_unique<DraSharing>(c.dra, c.interference);
     }},
};

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

}  // namespace slicelab
