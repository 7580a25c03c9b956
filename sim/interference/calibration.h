// The interference model's calibration: workload classes' demand vectors, each sharing mode's
// coefficients and the source of the numbers; read from and written to a calibration YAML.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "sim/interference/workload_class.h"
#include "sim/sharing/interference_model.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// Modes whose tenants share a GPU's SMs and memory system (and so interfere), as named in
// scenarios and measurement CSVs.
inline constexpr std::string_view kInterferingModes[] = {"time-slice", "mps", "interposer"};
bool is_interfering_mode(std::string_view mode);

struct FitQuality {
  size_t rows = 0;          // measured pairs
  size_t observations = 0;  // two per measured pair
  double rms = 0, max = 0;  // residuals of the slowdown (measured - predicted)
  // Share of the slowdown beyond the share model (sum of (slowdown - 1/base)^2) that the
  // interference terms explain, 0..1: 1 - residual sum of squares / that sum (1 when it is 0).
  double explained = 1;
};

struct Calibration {
  std::string source;  // where the numbers come from, in words
  WorkloadClasses classes;
  std::map<std::string, InterferenceCoefficients, std::less<>> coefficients;  // by mode
  std::optional<double> interposer_launch_overhead_ns;
  std::map<std::string, FitQuality, std::less<>> fit;  // by mode, when fitted

  InterferenceCoefficients for_mode(std::string_view mode) const;
};

// Throws InputError (file:line:column) on a malformed file.
Calibration load_calibration(const std::string& path);
// Reads `name: {sm, bandwidth, launch_khz, memory_mib}` entries into `out` (replacing classes
// of the same name); shared by calibration files and a scenario's `workload_classes:`.
void read_workload_classes(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                           WorkloadClasses& out);
// The calibration as YAML that load_calibration reads back.
std::string calibration_yaml(const Calibration& c);

}  // namespace slicelab
