// A sharing mode as the scenario names it, and the factory that builds the mode from it. New
// modes add their settings here and one line to the registry (sim/sharing/sharing_registry.cc).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "sim/dra/dra_settings.h"
#include "sim/interference/interference_model.h"
#include "sim/mig/mig_settings.h"
#include "sim/sharing/device_plugin_settings.h"
#include "sim/sharing/hami_settings.h"
#include "sim/sharing/sharing_mode.h"
#include "sim/vm/vm_settings.h"

namespace slicelab {

struct SharingConfig {
  // whole-card | time-slice | gpu-share | mig | mps | interposer | passthrough | vgpu | hami | dra
  std::string kind = "whole-card";
  int replicas = 4;
  double context_switch_overhead = 0.05;
  // --- MIG (kind "mig"): layout and dynamic re-partitioning; see docs/mig.md ---
  std::shared_ptr<const MigSettings> mig{};
  // --- VMs (kinds "passthrough" and "vgpu"): boot delay, vGPU scheduler; docs/vm-sharing.md.
  // Null: the defaults of VmSettings. ---
  std::shared_ptr<const VmSettings> vm{};
  // --- HAMi (kind "hami"): split count, memory and core scaling, policies; docs/hami.md.
  // Null: HAMi's defaults. ---
  std::shared_ptr<const HamiSettings> hami{};
  // --- Set when the NVIDIA device plugin's config file gave the mode (kind time-slice, mps or
  // whole-card); docs/device-plugin-config.md. ---
  std::shared_ptr<const DevicePluginSettings> device_plugin{};
  // --- DRA (kind "dra"): the objects read and how pods claim devices; docs/dra.md ---
  std::shared_ptr<const DraSettings> dra{};

  // --- MPS, interposer and the interference model (issue 4; docs/sharing-models.md) ---
  int mps_replicas = 0;  // mps: > 0: N equal clients (100/N % threads, 1/N memory); 0: per pod
  double fault_propagation = 0.5;         // mps: chance each neighbour fails with a client
  double client_fault_probability = 0.0;  // mps: chance a client hits a fatal fault at start
  // interposer: added CPU time per kernel launch (bench/limiter_overhead --paired, LaunchKernel).
  // Unset: the calibration's interposer_launch_overhead_ns, else kDefaultLaunchOverheadNs.
  std::optional<double> launch_overhead_ns{};
  static constexpr double kDefaultLaunchOverheadNs = 23.0;
  double limiter_window_s = 1.0;  // interposer: simulated time of the limiter per tenant set
  // This mode's coefficients from the scenario's calibration (zero: no interference).
  InterferenceCoefficients interference{};
};

std::unique_ptr<SharingMode> make_sharing_mode(const SharingConfig& config);

}  // namespace slicelab
