// A policy's sharing mode as the scenario names it: the mode's name, the device plugin's rules
// when its config gave the mode, the interference coefficients, and the mode's own settings held
// type-erased (the mode's reader sets them, its factory reads them back). The seam knows no mode.
#pragma once

#include <memory>
#include <string>
#include <typeindex>
#include <typeinfo>

#include "sim/sharing/device_plugin_settings.h"
#include "sim/sharing/interference_model.h"

namespace slicelab {

struct SharingConfig {
  // A mode of the registry (sim/modes/mode_registry.cc): whole-card, time-slice, mig, ...
  std::string kind = "whole-card";
  // Set when the NVIDIA device plugin's config file gave the mode (kind time-slice, mps or
  // whole-card); docs/device-plugin-config.md. Not a mode's setting: it wraps any of those modes
  // in the plugin's rules (make_sharing_mode).
  std::shared_ptr<const DevicePluginSettings> device_plugin{};
  // This mode's coefficients from the scenario's calibration (zero: no interference).
  InterferenceCoefficients interference{};

  // The mode's own settings (TimeSliceSettings, MpsSettings, MigSettings, HamiSettings, ...),
  // shared and immutable once read; null: the mode's defaults (or none, for modes that need them).
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
