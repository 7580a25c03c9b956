#include "sim/interference/calibration.h"
#include "workloads/kube/kube_yaml_quantities.h"

#include <fmt/format.h>

#include <algorithm>

namespace slicelab {

bool is_interfering_mode(std::string_view mode) {
  return std::find(std::begin(kInterferingModes), std::end(kInterferingModes), mode) !=
         std::end(kInterferingModes);
}

InterferenceCoefficients Calibration::for_mode(std::string_view mode) const {
  const auto it = coefficients.find(mode);
  return it == coefficients.end() ? InterferenceCoefficients{} : it->second;
}

void read_workload_classes(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                           WorkloadClasses& out) {
  yaml.require_map(node, path);
  for (const auto& kv : node) {
    WorkloadClass c;
    c.name = kv.first.Scalar();
    const std::string p = join_path(path, c.name);
    const YAML::Node v = kv.second;
    yaml.require_map(v, p);
    yaml.check_keys(v, p, {"sm", "bandwidth", "launch_khz", "memory_mib", "duty_cycle"});
    c.sm = yaml.number(yaml.required(v, p, "sm"), join_path(p, "sm"), 0.001, 1.0);
    c.bandwidth = yaml.opt_number(v, p, "bandwidth", 0.0, 1.0).value_or(0.0);
    c.launch_khz = yaml.opt_number(v, p, "launch_khz", 0.0, 1000.0).value_or(0.0);
    c.memory_mib = kube_opt_mebibytes(yaml, v, p, "memory_mib").value_or(0);
    if (const YAML::Node d = v["duty_cycle"]; d.IsDefined()) {
      const std::string dp = join_path(p, "duty_cycle");
      yaml.require_map(d, dp);
      yaml.check_keys(d, dp, {"active", "idle"});
      // Periods of a second to a week: shorter ones are the serving model's fast neighbours
      // anyway, and a week is longer than any run's notebook session.
      constexpr double kWeek = 7 * 86400.0;
      c.active_mean_s = yaml.duration(yaml.required(d, dp, "active"), join_path(dp, "active"), 1.0);
      c.idle_mean_s = yaml.duration(yaml.required(d, dp, "idle"), join_path(dp, "idle"), 0.0);
      if (c.active_mean_s > kWeek || c.idle_mean_s > kWeek)
        yaml.fail(d, dp, "periods of at most a week (7d)");
    }
    out.upsert(std::move(c));
  }
}

Calibration load_calibration(const std::string& path) try {
  const YAML::Node root = load_yaml_file(path);
  const YamlReader yaml(path);
  yaml.require_map(root, "");
  yaml.check_keys(root, "",
                  {"source", "classes", "coefficients", "interposer_launch_overhead_ns", "fit"});
  Calibration c;
  c.source = yaml.string(yaml.required(root, "", "source"), "source");
  if (const YAML::Node classes = root["classes"]; classes.IsDefined())
    read_workload_classes(yaml, classes, "classes", c.classes);
  if (const YAML::Node coeffs = root["coefficients"]; coeffs.IsDefined()) {
    yaml.require_map(coeffs, "coefficients");
    for (const auto& kv : coeffs) {
      const std::string mode = kv.first.Scalar();
      const std::string p = join_path("coefficients", mode);
      if (!is_interfering_mode(mode))
        yaml.fail_expected(kv.first, p, "time-slice, mps or interposer");
      yaml.require_map(kv.second, p);
      yaml.check_keys(kv.second, p, {"bandwidth", "launch"});
      InterferenceCoefficients k;
      // A neighbour never speeds a tenant up: negative coefficients are not physical.
      k.bandwidth = yaml.opt_number(kv.second, p, "bandwidth", 0.0, 100.0).value_or(0.0);
      k.launch = yaml.opt_number(kv.second, p, "launch", 0.0, 100.0).value_or(0.0);
      c.coefficients[mode] = k;
    }
  }
  c.interposer_launch_overhead_ns =
      yaml.opt_number(root, "", "interposer_launch_overhead_ns", 0.0, 1e7);
  // `fit:` is written by `slicelab calibrate` for people to read; it is not an input.
  return c;
} catch (const YAML::Exception& e) {
  // A yaml-cpp exception that a check above missed still names the file.
  throw located_yaml_error(path, e);
}

std::string calibration_yaml(const Calibration& c) {
  YAML::Emitter e;
  // 12 significant digits: inputs such as 0.4 read as written, fitted values to 1e-12.
  e.SetDoublePrecision(12);
  e << YAML::BeginMap;
  e << YAML::Key << "source" << YAML::Value << c.source;
  if (!c.classes.empty()) {
    e << YAML::Key << "classes" << YAML::Value << YAML::BeginMap;
    for (const WorkloadClass& w : c.classes.all()) {
      e << YAML::Key << w.name << YAML::Value << YAML::Flow << YAML::BeginMap;
      e << YAML::Key << "sm" << YAML::Value << w.sm;
      e << YAML::Key << "bandwidth" << YAML::Value << w.bandwidth;
      e << YAML::Key << "launch_khz" << YAML::Value << w.launch_khz;
      if (w.memory_mib > 0) e << YAML::Key << "memory_mib" << YAML::Value << w.memory_mib;
      if (w.idle_mean_s > 0)
        e << YAML::Key << "duty_cycle" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
          << "active" << YAML::Value << w.active_mean_s << YAML::Key << "idle" << YAML::Value
          << w.idle_mean_s << YAML::EndMap;
      e << YAML::EndMap;
    }
    e << YAML::EndMap;
  }
  e << YAML::Key << "coefficients" << YAML::Value << YAML::BeginMap;
  for (const auto& [mode, k] : c.coefficients) {
    e << YAML::Key << mode << YAML::Value << YAML::Flow << YAML::BeginMap;
    e << YAML::Key << "bandwidth" << YAML::Value << k.bandwidth;
    e << YAML::Key << "launch" << YAML::Value << k.launch;
    e << YAML::EndMap;
  }
  e << YAML::EndMap;
  if (c.interposer_launch_overhead_ns)
    e << YAML::Key << "interposer_launch_overhead_ns" << YAML::Value
      << *c.interposer_launch_overhead_ns;
  if (!c.fit.empty()) {
    e << YAML::Key << "fit" << YAML::Value << YAML::BeginMap;
    for (const auto& [mode, q] : c.fit) {
      e << YAML::Key << mode << YAML::Value << YAML::Flow << YAML::BeginMap;
      e << YAML::Key << "rows" << YAML::Value << q.rows;
      e << YAML::Key << "observations" << YAML::Value << q.observations;
      e << YAML::Key << "rms_residual" << YAML::Value << q.rms;
      e << YAML::Key << "max_residual" << YAML::Value << q.max;
      e << YAML::Key << "explained" << YAML::Value << q.explained;
      e << YAML::EndMap;
    }
    e << YAML::EndMap;
  }
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

}  // namespace slicelab
