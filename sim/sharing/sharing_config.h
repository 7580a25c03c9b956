// A policy's sharing mode as the scenario names it: the mode's name, the settings every mode may
// read, and the mode's own settings held type-erased (the mode's reader sets them, its factory in
// sim/modes/mode_registry.cc reads them back). The seam knows no mode.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <typeindex>
#include <typeinfo>

#include "sim/sharing/device_plugin_settings.h"
#include "sim/sharing/interference_model.h"

namespace slicelab {

struct SharingConfig {
  // A mode of the registry (sim/modes/mode_registry.cc): whole-card, time-slice, mig, ...
  std::string kind = "whole-card";
  // --- time-slice (and the device plugin's timeSlicing) ---
  int replicas = 4;
  double context_switch_overhead = 0.05;
  // --- Set when the NVIDIA device plugin's config file gave the mode (kind time-slice, mps or
  // whole-card); docs/device-plugin-config.md. ---
  std::shared_ptr<const DevicePluginSettings> device_plugin{};

  // --- MPS and interposer (issue 4; docs/sharing-models.md) ---
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

  // The mode's own settings (MigSettings, VmSettings, HamiSettings, DraSettings, ...), shared
  // and immutable once read; null: the mode's defaults (or none, for modes that need them).
  template <class T>
  void set_mode_settings(std::shared_ptr<T> settings) {
    mode_settings_type_ = settings ? std::type_index(typeid(T)) : std::type_index(typeid(void));
    mode_settings_ = std::move(settings);
  }
  // The settings if they are a T, else null.
  template <class T>
  std::shared_ptr<const T> mode_settings() const {
    if (!mode_settings_ || mode_settings_type_ != std::type_index(typeid(T))) return nullptr;
    return std::static_pointer_cast<const T>(mode_settings_);
  }

 private:
  std::shared_ptr<const void> mode_settings_{};
  std::type_index mode_settings_type_ = std::type_index(typeid(void));
};

}  // namespace slicelab
