#include "planning/plan_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "planning/plan_metrics.h"
#include "planning/workload_scaling.h"
#include "sim/metrics/class_summaries.h"
#include "sim/metrics/decide_spec.h"
#include "workloads/input_error.h"
#include "workloads/input_limits.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

bool PlanTarget::met_by(std::optional<double> value) const {
  if (!value) return false;
  return at_most ? *value <= bound : *value >= bound;
}

bool PlanTarget::met_by(const RunSummary& s) const {
  return met_by(metric_value(s, metric));
}

bool PlanSpec::met_by(const RunSummary& s) const {
  for (const auto& t : targets)
    if (!t.met_by(s)) return false;
  return true;
}

namespace {

bool is_duration_metric(std::string_view m) {
  return is_seconds_metric(m);
}

std::vector<PlanTarget> read_targets(const YamlReader& yaml, const YAML::Node& node) {
  const std::string path = "plan.targets";
  yaml.require_map(node, path);
  std::vector<PlanTarget> out;
  for (const auto& kv : node) {
    const std::string metric = kv.first.Scalar();
    const std::string mp = join_path(path, metric);
    if (const std::string why = metric_name_error(metric); !why.empty())
      yaml.fail(kv.first, mp, why);
    yaml.check_keys(kv.second, mp, {"max", "min"});
    const bool has_max = kv.second["max"].IsDefined();
    if (has_max == kv.second["min"].IsDefined())
      yaml.fail(kv.second, mp, "needs exactly one of 'max' or 'min'");
    const char* key = has_max ? "max" : "min";
    const YAML::Node v = kv.second[key];
    PlanTarget t;
    t.metric = metric;
    t.at_most = has_max;
    t.bound = is_duration_metric(metric) ? yaml.duration(v, join_path(mp, key))
                                         : yaml.number(v, join_path(mp, key), -1e18, 1e18);
    out.push_back(std::move(t));
  }
  if (out.empty()) yaml.fail(node, path, "needs at least one target");
  return out;
}

// The most nodes `group` may have with the other groups as they are, within the node and GPU
// limits (workloads/input_limits.h).
int largest_group_size(const ClusterSpec& cluster, const std::string& group) {
  int64_t nodes = 0, gpus = 0, per_node = 0;
  for (const auto& g : cluster.groups) {
    if (g.name == group) {
      per_node = g.gpus_per_node;
      continue;
    }
    nodes += g.count;
    gpus += static_cast<int64_t>(g.count) * g.gpus_per_node;
  }
  int64_t fit = kMaxNodes - nodes;
  if (per_node > 0) fit = std::min(fit, (kMaxGpus - gpus) / per_node);
  return static_cast<int>(std::max<int64_t>(fit, 0));
}

}  // namespace

PlanSpec read_plan_spec(const std::string& scenario_path, const Scenario& scenario) try {
  PlanSpec spec;
  for (const auto& g : scenario.cluster.groups)
    if (g.gpus_per_node > 0) {
      spec.node_group = g.name;
      // The default bound stays within the cluster limits; one given explicitly must.
      spec.max_nodes =
          std::max(1, std::min(16 * g.count, largest_group_size(scenario.cluster, g.name)));
      break;
    }
  const YAML::Node root = load_yaml_file(scenario_path);
  const YamlReader yaml(scenario_path);
  const YAML::Node plan = root["plan"];
  if (!plan.IsDefined()) return spec;
  yaml.require_map(plan, "plan");
  yaml.check_keys(plan, "plan", {"growth", "targets", "scale", "probes"});
  spec.growth = yaml.opt_number(plan, "plan", "growth", 0.01, 1000).value_or(1.0);
  spec.probes = static_cast<int>(yaml.opt_integer(plan, "plan", "probes", 1, 64).value_or(2));
  if (const YAML::Node t = plan["targets"]; t.IsDefined()) spec.targets = read_targets(yaml, t);
  if (const YAML::Node s = plan["scale"]; s.IsDefined()) {
    yaml.require_map(s, "plan.scale");
    yaml.check_keys(s, "plan.scale", {"node_group", "min", "max"});
    if (auto name = yaml.opt_string(s, "plan.scale", "node_group")) {
      const auto it = std::find_if(scenario.cluster.groups.begin(), scenario.cluster.groups.end(),
                                   [&](const NodeGroup& g) { return g.name == *name; });
      if (it == scenario.cluster.groups.end()) {
        std::string names;
        for (const auto& g : scenario.cluster.groups) names += (names.empty() ? "" : ", ") + g.name;
        yaml.fail(s["node_group"], "plan.scale.node_group",
                  fmt::format("no node group named '{}' (the cluster has: {})", *name, names));
      }
      if (it->gpus_per_node == 0)
        yaml.fail(s["node_group"], "plan.scale.node_group",
                  fmt::format("node group '{}' has no GPUs", *name));
      spec.node_group = *name;
      spec.max_nodes =
          std::max(1, std::min(16 * it->count, largest_group_size(scenario.cluster, *name)));
    }
    spec.min_nodes =
        static_cast<int>(yaml.opt_integer(s, "plan.scale", "min", 1, 1'000'000).value_or(1));
    spec.max_nodes = static_cast<int>(
        yaml.opt_integer(s, "plan.scale", "max", 1, 1'000'000).value_or(spec.max_nodes));
    if (spec.max_nodes < spec.min_nodes)
      yaml.fail(s, "plan.scale",
                fmt::format("max ({}) is below min ({})", spec.max_nodes, spec.min_nodes));
  }
  return spec;
} catch (const YAML::Exception& e) {
  // A yaml-cpp exception that a check above missed still names the file.
  throw located_yaml_error(scenario_path, e);
}

PlanTarget parse_target(std::string_view text) {
  const auto le = text.find("<=");
  const auto ge = text.find(">=");
  const auto pos = le != std::string_view::npos ? le : ge;
  if (pos == std::string_view::npos ||
      (le != std::string_view::npos && ge != std::string_view::npos))
    throw InputError(fmt::format(
        "--target '{}': expected METRIC<=VALUE or METRIC>=VALUE, e.g. queue_delay_p99_s<=300",
        text));
  PlanTarget t;
  t.metric = std::string(text.substr(0, pos));
  t.at_most = pos == le;
  if (!is_metric(t.metric)) (void)metric_value(RunSummary{}, t.metric);  // throws, listing names
  const std::string_view v = text.substr(pos + 2);
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), t.bound);
  if (ec != std::errc{} || end != v.data() + v.size() || !std::isfinite(t.bound))
    throw InputError(fmt::format("--target '{}': '{}' is not a number", text, v));
  return t;
}

void set_target(PlanSpec& spec, PlanTarget target) {
  for (auto& t : spec.targets)
    if (t.metric == target.metric) {
      t = std::move(target);
      return;
    }
  spec.targets.push_back(std::move(target));
}

void check_plan_spec(const PlanSpec& spec, const Scenario& scenario) {
  if (spec.targets.empty())
    throw InputError(
        fmt::format("{}: no targets: give them in the scenario's plan.targets or with --target",
                    scenario.path));
  if (spec.node_group.empty())
    throw InputError(
        fmt::format("{}: the cluster has no node group with GPUs to size", scenario.path));
  (void)node_group_index(scenario.cluster, spec.node_group);
  // A class-named target needs pods of that class (names as the decide: block checks them).
  const std::vector<std::string> classes = workload_class_names(scenario.pods);
  const std::vector<std::string> services = scenario.services.names();
  for (const PlanTarget& t : spec.targets)
    if (const RunMetric* m = plan_target_metric(split_metric_name(t.metric).metric))
      if (const std::string why =
              named_figure_error(*m, split_metric_name(t.metric).workload_class, classes, services);
          !why.empty())
        throw InputError(fmt::format("{}: target '{}': {}", scenario.path, t.metric, why));
  if (!(spec.growth > 0) || !std::isfinite(spec.growth))
    throw InputError(fmt::format("growth must be above 0, found {}", spec.growth));
  if (spec.probes < 1 || spec.probes > 64)
    throw InputError(fmt::format("probes must be in 1..64, found {}", spec.probes));
  if (spec.min_nodes < 1 || spec.max_nodes < spec.min_nodes)
    throw InputError(fmt::format("node bounds {}..{} are not a range of at least one node",
                                 spec.min_nodes, spec.max_nodes));
  // The largest size tried and the grown workload are held to a scenario's own limits.
  if (static_cast<double>(scenario.pods.size()) * spec.growth > static_cast<double>(kMaxPods))
    throw InputError(
        fmt::format("{}: growth {:g}x makes a workload of {:.0f} pods, more than the limit of {}",
                    scenario.path, spec.growth,
                    static_cast<double>(scenario.pods.size()) * spec.growth, kMaxPods));
  const int fit = largest_group_size(scenario.cluster, spec.node_group);
  if (spec.max_nodes > fit)
    throw InputError(fmt::format(
        "{}: {} nodes in node group '{}' make a cluster beyond the limits of {} nodes and {} GPUs "
        "(at most {} fit)",
        scenario.path, spec.max_nodes, spec.node_group, kMaxNodes, kMaxGpus, fit));
}

}  // namespace slicelab
