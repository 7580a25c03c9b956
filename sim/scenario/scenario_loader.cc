#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <unordered_map>

#include "sim/interference/calibration.h"
#include "sim/metrics/class_summaries.h"
#include "sim/metrics/queue_metrics.h"
#include "sim/metrics/service_metrics.h"
#include "sim/modes/device_plugin_config.h"
#include "sim/modes/mode_registry.h"
#include "sim/placement/plugin_registry.h"
#include "sim/scenario/import_sources.h"
#include "sim/scenario/queue_yaml.h"
#include "sim/scenario/recorded_placements_reader.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/snapshot_reader.h"
#include "sim/topology/topology_yaml.h"
#include "workloads/fill_sampler.h"
#include "workloads/input_error.h"
#include "workloads/input_limits.h"
#include "workloads/inputs/generator.h"
#include "workloads/inputs/job_yaml.h"
#include "workloads/inputs/pod_yaml.h"
#include "workloads/inputs/service_yaml.h"
#include "workloads/kube/kube_yaml_quantities.h"
#include "workloads/plain_file_name.h"
#include "workloads/yaml_reader.h"

namespace slicelab {
namespace {

constexpr size_t kMaxModels = 64;  // pods carry allowed models as a 64-bit mask

// Which of a node size's two spellings `map` uses (cpu_milli or Kubernetes' cpu, memory_mib or
// memory): exactly one is required.
const char* one_of(const YamlReader& yaml, const YAML::Node& map, std::string_view path,
                   const char* plain, const char* kubernetes) {
  const bool has_plain = map[plain].IsDefined();
  const bool has_kubernetes = map[kubernetes].IsDefined();
  if (has_plain && has_kubernetes)
    yaml.fail(map[kubernetes], join_path(path, kubernetes),
              fmt::format("'{}' asks for what '{}' already gives (line {}); keep one of them",
                          kubernetes, plain, map[plain].Mark().line + 1));
  if (!has_plain && !has_kubernetes)
    yaml.fail(map, path, fmt::format("missing required key '{}' (or '{}')", plain, kubernetes));
  return has_plain ? plain : kubernetes;
}

void read_gpu_models(const YamlReader& yaml, const YAML::Node& node, GpuCatalog& catalog) {
  yaml.require_map(node, "gpu_models");
  for (const auto& kv : node) {
    const std::string name = kv.first.Scalar();
    const std::string path = join_path("gpu_models", name);
    const YAML::Node m = kv.second;
    yaml.check_keys(m, path,
                    {"like", "memory_mib", "sm_count", "memory_bandwidth_gbps", "fp32_tflops",
                     "mig", "relative_speed", "price_per_hour"});
    GpuModel model;
    if (const auto* existing = catalog.find(name)) model = *existing;
    if (auto like = yaml.opt_string(m, path, "like")) {
      const GpuModel* base = catalog.find(*like);
      if (!base)
        yaml.fail(m["like"], join_path(path, "like"),
                  fmt::format("unknown GPU model '{}' (known: {})", *like, catalog.names()));
      model = *base;
    }
    model.name = name;
    if (auto v = kube_opt_mebibytes(yaml, m, path, "memory_mib")) model.memory_mib = *v;
    if (auto v = yaml.opt_integer(m, path, "sm_count", 1, 10000))
      model.sm_count = static_cast<int>(*v);
    if (auto v = yaml.opt_number(m, path, "memory_bandwidth_gbps", 0, 1e6))
      model.memory_bandwidth_gbps = *v;
    if (auto v = yaml.opt_number(m, path, "fp32_tflops", 0, 1e6)) model.fp32_tflops = *v;
    if (const YAML::Node v = m["mig"]; v.IsDefined())
      model.mig_capable = yaml.boolean(v, join_path(path, "mig"));
    if (auto v = yaml.opt_number(m, path, "relative_speed", 0.001, 1000)) model.relative_speed = *v;
    if (auto v = yaml.opt_number(m, path, "price_per_hour", 0, 1e6)) model.price_per_hour = *v;
    if (model.memory_mib <= 0) yaml.fail(m, path, "a new GPU model needs 'like' or 'memory_mib'");
    if (model.sm_count <= 0) model.sm_count = 1;
    catalog.upsert(std::move(model));
    if (catalog.models().size() > kMaxModels)
      yaml.fail(kv.first, path, fmt::format("at most {} GPU models are supported", kMaxModels));
  }
}

// node_names: one distinct name per node of the group (a Kubernetes import keeps the cluster's
// own names, which a snapshot's pods refer to).
void read_node_names(const YamlReader& yaml, const YAML::Node& node, const std::string& path,
                     NodeGroup& group, std::unordered_map<std::string, std::string>& seen) {
  group.node_names = yaml.string_list(node, path);
  if (group.node_names.size() != static_cast<size_t>(group.count))
    yaml.fail(node, path,
              fmt::format("lists {} names for a group of count {}; give one name per node",
                          group.node_names.size(), group.count));
  for (size_t k = 0; k < group.node_names.size(); ++k) {
    const std::string& n = group.node_names[k];
    const YAML::Node at = node.IsSequence() ? node[k] : node;
    if (n.empty()) yaml.fail(at, index_path(path, k), "a node name cannot be empty");
    if (auto [it, fresh] = seen.emplace(n, index_path(path, k)); !fresh)
      yaml.fail(at, index_path(path, k),
                fmt::format("duplicate node name '{}' (also {})", n, it->second));
  }
}

ClusterSpec read_cluster(const YamlReader& yaml, const YAML::Node& node,
                         const GpuCatalog& catalog) {
  yaml.check_keys(node, "cluster", {"node_groups", "openb_nodes"});
  if (const YAML::Node openb = node["openb_nodes"]; openb.IsDefined()) {
    if (node["node_groups"].IsDefined())
      yaml.fail(openb, "cluster.openb_nodes",
                "give either 'node_groups' or 'openb_nodes', not both");
    return read_openb_nodes_key(yaml, openb, yaml.file(), catalog);
  }
  const YAML::Node groups = yaml.required(node, "cluster", "node_groups");
  yaml.require_seq(groups, "cluster.node_groups");
  if (groups.size() == 0) yaml.fail(groups, "cluster.node_groups", "needs at least one node group");
  ClusterSpec spec;
  std::unordered_map<std::string, size_t> names;
  std::unordered_map<std::string, std::string> node_names;  // node name -> where it was given
  int64_t nodes = 0;
  int64_t gpus = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string path = index_path("cluster.node_groups", i);
    const YAML::Node g = groups[i];
    yaml.check_keys(g, path,
                    {"name", "count", "cpu_milli", "memory_mib", "cpu", "memory", "gpu_model",
                     "gpus_per_node", "topology", "node_names"});
    NodeGroup group;
    group.name = yaml.opt_string(g, path, "name").value_or(fmt::format("group{}", i));
    if (auto [it, fresh] = names.emplace(group.name, i); !fresh)
      yaml.fail(g["name"], join_path(path, "name"),
                fmt::format("duplicate node group name '{}' (also cluster.node_groups[{}])",
                            group.name, it->second));
    group.count = static_cast<int>(
        yaml.integer(yaml.required(g, path, "count"), join_path(path, "count"), 1, 1'000'000));
    if (const YAML::Node nn = g["node_names"]; nn.IsDefined())
      read_node_names(yaml, nn, join_path(path, "node_names"), group, node_names);
    {
      const char* key = one_of(yaml, g, path, "cpu_milli", "cpu");
      const std::string p = join_path(path, key);
      group.cpu_milli = key == std::string_view("cpu")
                            ? kube_cpu_milli(yaml, g[key], p)
                            : yaml.integer(g[key], p, 1, int64_t{1} << 40);
      if (group.cpu_milli <= 0) yaml.fail_expected(g[key], p, "a CPU quantity above 0");
    }
    {
      const char* key = one_of(yaml, g, path, "memory_mib", "memory");
      const std::string p = join_path(path, key);
      group.memory_mib = key == std::string_view("memory")
                             ? kube_memory_bytes_as_mib(yaml, g[key], p)
                             : kube_mebibytes(yaml, g[key], p);
      if (group.memory_mib <= 0) yaml.fail_expected(g[key], p, "a size above 0");
    }
    group.gpus_per_node =
        static_cast<int>(yaml.opt_integer(g, path, "gpus_per_node", 0, 64).value_or(0));
    // A model without a GPU count is almost always a forgotten gpus_per_node, not a CPU-only
    // group: silently treating it as one would leave its GPU pods unschedulable.
    if (group.gpus_per_node == 0 && g["gpu_model"].IsDefined())
      yaml.fail(g["gpu_model"], join_path(path, "gpu_model"),
                "a GPU model needs gpus_per_node of at least 1 (leave gpu_model out for CPU-only "
                "nodes)");
    if (group.gpus_per_node > 0) {
      const std::string mp = join_path(path, "gpu_model");
      const YAML::Node mnode = yaml.required(g, path, "gpu_model");
      const std::string model = yaml.string(mnode, mp);
      const auto idx = catalog.index_of(model);
      if (!idx)
        yaml.fail(mnode, mp,
                  fmt::format("unknown GPU model '{}' (known: {})", model, catalog.names()));
      group.gpu_model = *idx;
    }
    if (const YAML::Node t = g["topology"]; t.IsDefined())
      group.topology =
          read_topology(yaml, t, join_path(path, "topology"), yaml.file(), group.gpus_per_node);
    // Counted as they are read, so the message points at the group that crosses a limit.
    nodes += static_cast<int64_t>(group.count);
    gpus += static_cast<int64_t>(group.count) * group.gpus_per_node;
    if (nodes > kMaxNodes)
      yaml.fail(g["count"], join_path(path, "count"),
                fmt::format("the cluster has {} nodes up to here, more than the limit of {}", nodes,
                            kMaxNodes));
    if (gpus > kMaxGpus)
      yaml.fail(g["count"], join_path(path, "count"),
                fmt::format("the cluster has {} GPUs up to here (count x gpus_per_node), more "
                            "than the limit of {}",
                            gpus, kMaxGpus));
    spec.groups.push_back(std::move(group));
  }
  return spec;
}

// engine.restart: Kubernetes' restartPolicy with the kubelet's back-off (restart_policy.h).
RestartConfig read_restart(const YamlReader& yaml, const YAML::Node& node) {
  const std::string path = "engine.restart";
  yaml.require_map(node, path);
  yaml.check_keys(node, path, {"policy", "backoff", "max_backoff", "reschedule"});
  RestartConfig c;
  const YAML::Node policy = yaml.required(node, path, "policy");
  const std::string name = yaml.string(policy, join_path(path, "policy"));
  bool known = false;
  for (const RestartKind k : {RestartKind::kNever, RestartKind::kOnFailure, RestartKind::kAlways})
    if (name == to_string(k)) {
      c.policy = k;
      known = true;
    }
  if (!known) yaml.fail_expected(policy, join_path(path, "policy"), "Never, OnFailure or Always");
  if (const YAML::Node v = node["reschedule"])
    c.reschedule = yaml.boolean(v, join_path(path, "reschedule"));
  // At least a second, as the kubelet's cap: a pod that keeps failing must not restart in zero
  // (or next to no) simulated time. A cap below the default first delay lowers that delay to
  // it, as the kubelet does; both given, the cap must not be below the first.
  const auto first = yaml.opt_duration(node, path, "backoff", kMinRestartBackoffS);
  const auto cap = yaml.opt_duration(node, path, "max_backoff", kMinRestartBackoffS);
  c.max_backoff_s = cap.value_or(std::max(c.max_backoff_s, first.value_or(0.0)));
  c.backoff_s = first.value_or(std::min(c.backoff_s, c.max_backoff_s));
  if (c.max_backoff_s < c.backoff_s)
    yaml.fail(node["max_backoff"], join_path(path, "max_backoff"),
              fmt::format("the cap ({:g}s) is below the first back-off ({:g}s)", c.max_backoff_s,
                          c.backoff_s));
  return c;
}

// engine.gang, or a policy's gang: how a job's gang starts (gang_table.h;
// docs/training-jobs.md#gang-modes).
GangConfig read_gang(const YamlReader& yaml, const YAML::Node& node, const std::string& path) {
  yaml.require_map(node, path);
  yaml.check_keys(node, path, {"mode", "timeout", "backoff"});
  GangConfig c;
  if (const YAML::Node m = node["mode"]; m.IsDefined()) {
    const auto mode = gang_mode_from_name(yaml.string(m, join_path(path, "mode")));
    if (!mode) yaml.fail_expected(m, join_path(path, "mode"), "all-or-nothing, permit or none");
    c.mode = *mode;
  }
  c.timeout_s = yaml.opt_duration(node, path, "timeout", 1.0).value_or(c.timeout_s);
  c.backoff_s = yaml.opt_duration(node, path, "backoff", 0.0).value_or(c.backoff_s);
  for (const char* key : {"timeout", "backoff"})
    if (node[key].IsDefined() && c.mode != GangMode::kPermit)
      yaml.fail(node[key], join_path(path, key),
                "only mode permit releases a partial gang after a timeout");
  return c;
}

// engine.preemption, or a policy's: whether pods that find no node evict lower-priority pods.
PreemptionPolicy read_preemption(const YamlReader& yaml, const YAML::Node& node,
                                 const std::string& path) {
  const auto p = preemption_policy_from_name(yaml.string(node, path));
  if (!p) yaml.fail_expected(node, path, "never or lower-priority");
  return *p;
}

// The most GPUs of one node whose model `models` allows (expand_jobs' split).
LargestNode largest_node(const ClusterSpec& cluster, const GpuCatalog& catalog) {
  return [&cluster, &catalog](const ModelList& models) {
    int most = 0;
    for (const NodeGroup& g : cluster.groups) {
      const std::string& name = catalog.models()[g.gpu_model].name;
      if (!models.empty() && std::find(models.begin(), models.end(), name) == models.end())
        continue;
      most = std::max(most, g.gpus_per_node);
    }
    return most;
  };
}

EngineConfig read_engine(const YamlReader& yaml, const YAML::Node& node) {
  EngineConfig c;
  if (!node.IsDefined()) return c;
  yaml.check_keys(
      node, "engine",
      {"queue", "sample_interval", "until", "speed_scaling", "restart", "gang", "preemption"});
  if (auto q = yaml.opt_string(node, "engine", "queue")) {
    if (*q == "fifo")
      c.backfill = false;
    else if (*q == "backfill")
      c.backfill = true;
    else
      yaml.fail_expected(node["queue"], "engine.queue", "fifo or backfill");
  }
  c.sample_interval_s =
      yaml.opt_duration(node, "engine", "sample_interval", 0.001).value_or(c.sample_interval_s);
  c.until_s = yaml.opt_duration(node, "engine", "until", 0.0);
  if (const YAML::Node v = node["speed_scaling"]; v.IsDefined())
    c.speed_scaling = yaml.boolean(v, "engine.speed_scaling");
  if (const YAML::Node v = node["restart"]; v.IsDefined()) c.restart = read_restart(yaml, v);
  if (const YAML::Node v = node["gang"]; v.IsDefined()) c.gang = read_gang(yaml, v, "engine.gang");
  if (const YAML::Node v = node["preemption"]; v.IsDefined())
    c.preemption = read_preemption(yaml, v, "engine.preemption");
  return c;
}

PlacementConfig read_placement(const YamlReader& yaml, const YAML::Node& node,
                               const std::string& path) {
  if (node.IsScalar()) {
    auto preset = placement_preset(node.Scalar());
    if (!preset)
      yaml.fail(node, path,
                fmt::format("unknown placement preset '{}' (known: {})", node.Scalar(),
                            placement_preset_names()));
    return *preset;
  }
  if (!node.IsMap()) yaml.fail_expected(node, path, "a preset name or a mapping");
  yaml.check_keys(node, path,
                  {"preset", "filters", "scorers", "device_picker", "tie_break",
                   "percentage_of_nodes_to_score"});
  PlacementConfig c;
  if (auto preset = yaml.opt_string(node, path, "preset")) {
    auto p = placement_preset(*preset);
    if (!p)
      yaml.fail(node["preset"], join_path(path, "preset"),
                fmt::format("unknown placement preset '{}' (known: {})", *preset,
                            placement_preset_names()));
    c = *p;
  } else {
    c = *placement_preset("first-fit");
    c.preset.clear();
  }
  if (const YAML::Node f = node["filters"]; f.IsDefined()) {
    const std::string fp = join_path(path, "filters");
    yaml.require_seq(f, fp);
    c.filters.clear();
    for (size_t i = 0; i < f.size(); ++i) {
      const std::string name = yaml.string(f[i], index_path(fp, i));
      if (!find_placement_plugin(PluginKind::kFilter, name))
        yaml.fail(f[i], index_path(fp, i),
                  fmt::format("unknown filter '{}' (known: {})", name,
                              placement_plugin_names(PluginKind::kFilter)));
      c.filters.push_back(name);
    }
    c.preset.clear();
  }
  if (const YAML::Node s = node["scorers"]; s.IsDefined()) {
    const std::string sp = join_path(path, "scorers");
    yaml.require_seq(s, sp);
    c.scorers.clear();
    for (size_t i = 0; i < s.size(); ++i) {
      const std::string ip = index_path(sp, i);
      std::string name;
      int64_t weight = 1;
      if (s[i].IsScalar()) {
        name = yaml.string(s[i], ip);
      } else {
        yaml.check_keys(s[i], ip, {"name", "weight"});
        name = yaml.string(yaml.required(s[i], ip, "name"), join_path(ip, "name"));
        // kube-scheduler's plugin weights are positive integers.
        const double w = yaml.opt_number(s[i], ip, "weight", 1.0, 1e6).value_or(1.0);
        if (w != std::floor(w))
          yaml.fail(s[i]["weight"], join_path(ip, "weight"),
                    fmt::format("must be a whole number (a plugin weight, as kube-scheduler's), "
                                "not {:g}",
                                w));
        weight = static_cast<int64_t>(w);
      }
      if (!find_placement_plugin(PluginKind::kScorer, name))
        yaml.fail(s[i].IsScalar() ? s[i] : s[i]["name"],
                  s[i].IsScalar() ? ip : join_path(ip, "name"),
                  fmt::format("unknown scorer '{}' (known: {})", name,
                              placement_plugin_names(PluginKind::kScorer)));
      c.scorers.emplace_back(name, weight);
    }
    c.preset.clear();
  }
  if (auto tie = yaml.opt_string(node, path, "tie_break")) {
    const PlacementPlugin* t = find_placement_plugin(PluginKind::kTieBreak, *tie);
    if (!t)
      yaml.fail(node["tie_break"], join_path(path, "tie_break"),
                fmt::format("unknown tie_break '{}' (known: {})", *tie,
                            placement_plugin_names(PluginKind::kTieBreak)));
    c.tie_break = std::get<TieBreak>(t->make);
  }
  // kube-scheduler's percentageOfNodesToScore: a whole percentage, 0 its adaptive default.
  if (auto pct = yaml.opt_integer(node, path, "percentage_of_nodes_to_score", 0, 100))
    c.percentage_of_nodes_to_score = static_cast<int>(*pct);
  if (auto picker = yaml.opt_string(node, path, "device_picker")) {
    if (!find_placement_plugin(PluginKind::kDevicePicker, *picker))
      yaml.fail(node["device_picker"], join_path(path, "device_picker"),
                fmt::format("unknown device picker '{}' (known: {})", *picker,
                            placement_plugin_names(PluginKind::kDevicePicker)));
    c.picker = *picker;
    c.preset.clear();
  }
  return c;
}

SharingConfig read_sharing(const YamlReader& yaml, const YAML::Node& node,
                           const std::string& path) {
  SharingConfig c;
  if (!node.IsDefined()) return c;
  if (!node.IsMap() && !node.IsScalar())
    yaml.fail_expected(node, path, "a sharing mode name or a mapping");
  // --- The NVIDIA device plugin's own config file (sim/modes/device_plugin_config.cc) ---
  if (is_device_plugin_sharing(node)) {
    read_device_plugin_sharing(yaml, node, path, c);
    return c;
  }
  // --- Every mode through its own reader (sim/modes/mode_registry.cc) ---
  read_mode_settings(yaml, node, path, c);
  return c;
}

std::vector<PolicySpec> read_policies(const YamlReader& yaml, const YAML::Node& node) {
  yaml.require_seq(node, "policies");
  if (node.size() == 0) yaml.fail(node, "policies", "needs at least one policy");
  std::vector<PolicySpec> out;
  std::unordered_map<std::string, size_t> names;
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string path = index_path("policies", i);
    const YAML::Node p = node[i];
    yaml.check_keys(p, path, {"name", "placement", "sharing", "gang", "preemption"});
    PolicySpec spec;
    if (const YAML::Node g = p["gang"]; g.IsDefined())
      spec.gang = read_gang(yaml, g, join_path(path, "gang"));
    if (const YAML::Node v = p["preemption"]; v.IsDefined())
      spec.preemption = read_preemption(yaml, v, join_path(path, "preemption"));
    const YAML::Node placement = yaml.required(p, path, "placement");
    spec.placement = read_placement(yaml, placement, join_path(path, "placement"));
    spec.sharing = read_sharing(yaml, p["sharing"], join_path(path, "sharing"));
    check_mode_placement(yaml, placement, join_path(path, "placement"), spec.placement,
                         spec.sharing);
    spec.name = yaml.opt_string(p, path, "name")
                    .value_or(spec.placement.preset.empty() ? fmt::format("policy{}", i)
                                                            : spec.placement.preset);
    if (auto [it, fresh] = names.emplace(spec.name, i); !fresh)
      yaml.fail(
          p["name"].IsDefined() ? p["name"] : p,
          p["name"].IsDefined() ? join_path(path, "name") : path,
          fmt::format("duplicate policy name '{}' (also policies[{}])", spec.name, it->second));
    out.push_back(std::move(spec));
  }
  return out;
}

// Each mode's load-time check of its policies against the cluster and workload, in the
// registry's order (DRA reads its objects here).
void check_mode_policies(const YamlReader& yaml, const YAML::Node& root, Scenario& sc) {
  const ModeLoad load{yaml, root, sc.cluster, sc.catalog, sc.pods};
  std::vector<ModePolicy> mine;
  for (const SharingModeEntry& mode : sharing_modes()) {
    if (!mode.check) continue;
    mine.clear();
    for (size_t i = 0; i < sc.policies.size(); ++i)
      if (sc.policies[i].sharing.kind == mode.name) mine.push_back({i, &sc.policies[i].sharing});
    mode.check(load, mine);
  }
}

// The interference model (issue 4): `calibration:` (a file beside the scenario) supplies classes
// and per-mode coefficients, `workload_classes:` adds or overrides classes; every policy of an
// interfering mode gets its mode's coefficients.
void read_interference(const YamlReader& yaml, const YAML::Node& root, const std::string& path,
                       Scenario& sc) {
  Calibration cal;
  if (const YAML::Node c = root["calibration"]; c.IsDefined()) {
    const std::string rel = yaml.string(c, "calibration");
    const auto file = std::filesystem::path(path).parent_path() / rel;
    yaml.require_file(c, "calibration", file, "calibration file");
    cal = load_calibration(file.string());
    sc.calibration = fmt::format("{}: {}", rel, cal.source);
  }
  sc.classes = cal.classes;
  if (const YAML::Node w = root["workload_classes"]; w.IsDefined())
    read_workload_classes(yaml, w, "workload_classes", sc.classes);
  for (PolicySpec& p : sc.policies) apply_calibration(cal, p.sharing);
}

// The time series is one sample per interval over the run: bound it before the run rather
// than by running out of memory (an interval of 1ms over a year is 3e10 samples). The run lasts
// until engine.until, or at least until the last pod would finish without queueing; the engine
// stops a run that queues past the limit (sim/engine/engine.cc).
void check_sample_count(const YamlReader& yaml, const YAML::Node& engine, const Scenario& sc) {
  const double interval = sc.engine.sample_interval_s;
  if (interval <= 0) return;
  double span = 0;
  if (sc.engine.until_s) {
    span = *sc.engine.until_s;
  } else {
    for (const PodSpec& p : sc.pods) span = std::max(span, p.arrival_s + p.duration_s);
  }
  const double samples = span / interval;
  if (samples <= static_cast<double>(kMaxSamples)) return;
  const bool given = engine.IsDefined() && engine["sample_interval"].IsDefined();
  yaml.fail(given ? engine["sample_interval"] : engine, given ? "engine.sample_interval" : "engine",
            fmt::format("{:g}s of simulated time ({}) / {:g}s gives {:.0f} samples, more than the "
                        "limit of {}; raise sample_interval to at least {:g}s",
                        span, sc.engine.until_s ? "engine.until" : "to the last pod's end",
                        interval, samples, kMaxSamples, span / static_cast<double>(kMaxSamples)));
}

// `decide:` (docs/scenario-format.md): objective and constraints as short texts, each checked
// where it is written.
// A `[queue:NAME]` names a queue of the scenario's queues: block; "" when it does (or names
// none).
std::string unknown_queue_error(std::string_view named, const QueueConfig& queues) {
  if (!named.starts_with(kQueuePrefix)) return {};
  const std::string_view name = named.substr(kQueuePrefix.size());
  if (queues.index_of(name)) return {};
  if (queues.empty())
    return fmt::format("names queue '{}', and the scenario declares no queues: block", name);
  std::vector<std::string> names;
  for (const ClusterQueueSpec& q : queues.queues) names.push_back(q.name);
  return fmt::format("names queue '{}', which queues: does not declare (its queues: {})", name,
                     fmt::join(names, ", "));
}

DecideSpec read_decide(const YamlReader& yaml, const YAML::Node& node,
                       std::span<const PodSpec> pods, const QueueConfig& queues,
                       const ServiceTable& services) {
  const std::vector<std::string> classes = workload_class_names(pods);
  const std::vector<std::string> service_names = services.names();
  yaml.require_map(node, "decide");
  yaml.check_keys(node, "decide", {"objective", "constraints"});
  DecideSpec d;
  d.stated = true;
  std::string why;
  if (const YAML::Node o = node["objective"]; o.IsDefined()) {
    yaml.require_seq(o, "decide.objective");
    if (o.size() == 0) yaml.fail(o, "decide.objective", "needs at least one 'max/min METRIC'");
    for (size_t i = 0; i < o.size(); ++i) {
      const std::string path = index_path("decide.objective", i);
      auto goal = parse_decide_goal(yaml.string(o[i], path), why);
      if (goal)
        why = named_figure_error(*goal->metric, goal->workload_class, classes, service_names);
      if (goal && why.empty()) why = unknown_queue_error(goal->workload_class, queues);
      if (!goal || !why.empty()) yaml.fail(o[i], path, why);
      d.objective.push_back(std::move(*goal));
    }
  } else {
    d.objective = default_decide_spec().objective;
  }
  if (const YAML::Node c = node["constraints"]; c.IsDefined()) {
    yaml.require_seq(c, "decide.constraints");
    for (size_t i = 0; i < c.size(); ++i) {
      const std::string path = index_path("decide.constraints", i);
      auto constraint = parse_decide_constraint(yaml.string(c[i], path), why);
      if (constraint)
        why = named_figure_error(*constraint->metric, constraint->workload_class, classes,
                                 service_names);
      if (constraint && why.empty()) why = unknown_queue_error(constraint->workload_class, queues);
      if (!constraint || !why.empty()) yaml.fail(c[i], path, why);
      d.constraints.push_back(std::move(*constraint));
    }
  }
  return d;
}

// workload.services: each service's replica pool follows the other pods. A service runs until
// the run ends, so the run needs its end (engine.until).
void read_services(const YamlReader& yaml, const YAML::Node& w, const std::string& path,
                   const ModelCheck& check_model, Scenario& sc) {
  const YAML::Node list = w["services"];
  if (w["fill"].IsDefined())
    yaml.fail(list, "workload.services",
              "a fill experiment places pods one by one: leave out services");
  if (!sc.engine.until_s)
    yaml.fail(list, "workload.services",
              "services serve until the run ends: set engine.until (for a day: until: 24h)");
  const std::string base_dir = std::filesystem::path(path).parent_path().string();
  std::vector<ServiceSpec> specs =
      read_service_list(yaml, list, "workload.services", base_dir, check_model);
  try {
    sc.services.expand(std::move(specs), sc.pods);
  } catch (const InputError& e) {
    yaml.fail(list, "workload.services", e.what());
  }
  sc.workload_source += (sc.workload_source.empty() ? "" : " + ") + std::string("services");
}

}  // namespace

Scenario load_scenario(const std::string& path, std::optional<uint64_t> seed_override) try {
  const YAML::Node root = load_yaml_file(path);
  const YamlReader yaml(path);
  yaml.check_keys(root, "",
                  {"name", "description", "seed", "seeds", "gpu_models", "cluster", "workload",
                   "engine", "policies", "calibration", "workload_classes", "plan", "decide", "dra",
                   "queues"});  // plan: planning
  Scenario sc;
  sc.path = path;
  sc.name = yaml.opt_string(root, "", "name").value_or(std::filesystem::path(path).stem().string());
  // The name becomes a folder (results/<name>): a path there could replace any folder.
  if (const auto problem = plain_file_name_problem(sc.name)) {
    if (root["name"].IsDefined()) yaml.fail(root["name"], "name", *problem);
    yaml.fail(root, "name",
              fmt::format("no name: key, and the file's name (without .yaml) {}; add a name: key",
                          *problem));
  }
  sc.description = yaml.opt_string(root, "", "description").value_or("");
  sc.seed = static_cast<uint64_t>(yaml.opt_integer(root, "", "seed", 0, INT64_MAX).value_or(42));
  if (const YAML::Node seeds = root["seeds"]; seeds.IsDefined()) {
    yaml.require_seq(seeds, "seeds");
    if (seeds.size() == 0) yaml.fail(seeds, "seeds", "needs at least one seed");
    if (seeds.size() > static_cast<size_t>(kMaxSeeds))
      yaml.fail(seeds, "seeds",
                fmt::format("has {} seeds, more than the limit of {}", seeds.size(), kMaxSeeds));
    for (size_t i = 0; i < seeds.size(); ++i)
      sc.seeds.push_back(
          static_cast<uint64_t>(yaml.integer(seeds[i], index_path("seeds", i), 0, INT64_MAX)));
    if (!root["seed"].IsDefined()) sc.seed = sc.seeds.front();
  }
  if (seed_override) sc.seed = *seed_override;

  sc.catalog = GpuCatalog::builtin();
  if (scenario_uses_openb(root)) add_openb_assumed_models(sc.catalog);
  if (const YAML::Node m = root["gpu_models"]; m.IsDefined()) read_gpu_models(yaml, m, sc.catalog);
  const YAML::Node cluster = yaml.required(root, "", "cluster");
  sc.cluster = read_cluster(yaml, cluster, sc.catalog);
  // openb node lists are counted here; node_groups are counted group by group as they are read.
  if (sc.cluster.node_count() > static_cast<size_t>(kMaxNodes) ||
      sc.cluster.gpu_count() > static_cast<size_t>(kMaxGpus))
    yaml.fail(cluster, "cluster",
              fmt::format("has {} nodes and {} GPUs, more than the limits of {} nodes and {} GPUs",
                          sc.cluster.node_count(), sc.cluster.gpu_count(), kMaxNodes, kMaxGpus));
  sc.engine = read_engine(yaml, root["engine"]);
  if (const YAML::Node q = root["queues"]; q.IsDefined()) sc.engine.queues = read_queues(yaml, q);

  const ModelCheck check_model = [&](std::string_view m) -> std::optional<std::string> {
    if (sc.catalog.index_of(m)) return std::nullopt;
    return fmt::format("unknown GPU model '{}' (known: {})", m, sc.catalog.names());
  };
  const YAML::Node w = yaml.required(root, "", "workload");
  yaml.check_keys(w, "workload",
                  {"pods", "trace", "generator", "openb", "csv", "jobs", "job_trace", "fill",
                   "snapshot", "placements", "services"});
  int sources = 0;
  for (const char* key : {"pods", "trace", "generator", "openb", "csv"})
    sources += w[key].IsDefined() ? 1 : 0;
  const int job_sources = (w["jobs"].IsDefined() ? 1 : 0) + (w["job_trace"].IsDefined() ? 1 : 0);
  const bool services = w["services"].IsDefined();
  if (sources > 1 || job_sources > 1 || (sources + job_sources == 0 && !services))
    yaml.fail(w, "workload",
              "needs exactly one of 'pods', 'trace', 'generator', 'openb' or 'csv', or 'jobs' "
              "or 'job_trace' (alone or with one of them), or 'services' (alone or beside them)");
  if (sources == 0) {
    sc.workload_source.clear();
  } else if (w["openb"].IsDefined()) {
    sc.pods = read_openb_workload(yaml, w["openb"], path, check_model, sc.workload_source);
  } else if (w["csv"].IsDefined()) {
    sc.pods = read_csv_workload(yaml, w["csv"], path, check_model, sc.workload_source);
  } else if (w["pods"].IsDefined()) {
    sc.pods = read_pod_list(yaml, w["pods"], "workload.pods", check_model);
    sc.workload_source = "inline";
  } else if (w["trace"].IsDefined()) {
    const std::string rel = yaml.string(w["trace"], "workload.trace");
    const auto trace = std::filesystem::path(path).parent_path() / rel;
    yaml.require_file(w["trace"], "workload.trace", trace, "trace file");
    sc.pods = read_trace_file(trace.string(), check_model);
    sc.workload_source = "trace " + rel;
  } else {
    const GeneratorSpec g =
        read_generator_spec(yaml, w["generator"], "workload.generator", check_model);
    sc.pods = generate_pods(g, sc.seed);
    sc.generator = g;
    sc.workload_source = "generator";
  }
  if (job_sources > 0) {
    const char* key = w["jobs"].IsDefined() ? "jobs" : "job_trace";
    const YAML::Node jobs = w[key];
    const std::string jp = join_path("workload", key);
    if (w["fill"].IsDefined())
      yaml.fail(jobs, jp, "a fill experiment places pods one by one: leave out jobs");
    std::string job_source = "jobs";
    const std::vector<JobSpec> list =
        w["jobs"].IsDefined() ? read_job_list(yaml, jobs, jp, check_model)
                              : read_job_trace_workload(yaml, jobs, path, check_model, job_source);
    try {
      expand_jobs(list, largest_node(sc.cluster, sc.catalog), sc.pods, sc.jobs);
    } catch (const InputError& e) {
      yaml.fail(jobs, jp, e.what());
    }
    sc.workload_source += (sources > 0 ? " + " : "") + job_source;
  }
  if (services) read_services(yaml, w, path, check_model, sc);
  if (const YAML::Node q = root["queues"]; q.IsDefined()) {
    if (sc.jobs.empty())
      yaml.fail(q, "queues",
                "queues admit jobs (workload.jobs or workload.job_trace), and this workload has "
                "none");
    check_job_queues(yaml, q, sc.engine.queues, sc.jobs);
  }
  // Every source checks its own count as it reads; this is the one place all sources pass.
  if (sc.pods.size() > static_cast<size_t>(kMaxPods))
    yaml.fail(w, "workload",
              fmt::format("has {} pods, more than the limit of {}", sc.pods.size(), kMaxPods));
  if (const YAML::Node snap = w["snapshot"]; snap.IsDefined()) {
    // Fill sampling draws new pods: the snapshot's indices would name others.
    if (w["fill"].IsDefined())
      yaml.fail(snap, "workload.snapshot", "cannot be combined with workload.fill");
    sc.snapshot = read_snapshot_key(yaml, snap, path, sc.cluster, sc.catalog, sc.pods);
  }
  if (const YAML::Node placed = w["placements"]; placed.IsDefined()) {
    if (w["fill"].IsDefined())
      yaml.fail(placed, "workload.placements", "cannot be combined with workload.fill");
    sc.recorded = read_placements_key(yaml, placed, path, sc.cluster, sc.pods, sc.recorded_gpus);
  }
  if (const YAML::Node fill = w["fill"]; fill.IsDefined()) {
    yaml.check_keys(fill, "workload.fill", {"target"});
    const double target = yaml.number(yaml.required(fill, "workload.fill", "target"),
                                      "workload.fill.target", 0.01, 100.0);
    if (sc.cluster.gpu_count() == 0) yaml.fail(fill, "workload.fill", "needs a cluster with GPUs");
    // Below the goal, each appended draw adds a random pod's GPU demand, so the mean demand
    // gives the expected count (originals included); above it, pods are only removed.
    double demand = 0;
    for (const PodSpec& p : sc.pods)
      demand += p.gpu_count * static_cast<double>(p.gpu_milli) / 1000.0;
    const double draws = target * static_cast<double>(sc.cluster.gpu_count()) /
                         (demand / static_cast<double>(std::max<size_t>(sc.pods.size(), 1)));
    if (demand > 0 && draws > static_cast<double>(kMaxPods))
      yaml.fail(fill["target"], "workload.fill.target",
                fmt::format("takes about {:.0f} pods to fill {} GPUs, more than the limit of {}",
                            draws, sc.cluster.gpu_count(), kMaxPods));
    // The paper's FGD target comes from the trace, not the tuned workload (sc.target_pods).
    sc.target_pods = std::move(sc.pods);
    sc.pods =
        sample_fill(sc.target_pods, static_cast<double>(sc.cluster.gpu_count()), target, sc.seed);
    if (sc.pods.empty())
      yaml.fail(fill, "workload.fill", "needs a workload with GPU pods to sample from");
    sc.workload_source += fmt::format(", fill to {:g}x the GPU capacity", target);
    sc.engine.fill = true;
    if (sc.engine.restart.enabled())
      yaml.fail(root["engine"]["restart"], "engine.restart",
                "a fill experiment gives each pod one attempt: leave out the restart policy");
  }
  check_sample_count(yaml, root["engine"], sc);
  sc.policies = read_policies(yaml, yaml.required(root, "", "policies"));
  check_mode_policies(yaml, root, sc);
  // The recorded-node filter without placements would pin nothing: as-recorded would silently
  // be best-fit.
  for (size_t i = 0; i < sc.policies.size(); ++i) {
    const auto& f = sc.policies[i].placement.filters;
    if (!w["placements"].IsDefined() && std::find(f.begin(), f.end(), "recorded-node") != f.end())
      yaml.fail(root["policies"][i], index_path("policies", i),
                fmt::format("policy '{}' keeps pods to their recorded nodes (as-recorded, "
                            "recorded-node), which needs workload.placements "
                            "(docs/record-replay.md#as-recorded)",
                            sc.policies[i].name));
  }
  read_interference(yaml, root, path, sc);
  if (const YAML::Node d = root["decide"]; d.IsDefined())
    sc.decide = read_decide(yaml, d, sc.pods, sc.engine.queues, sc.services);
  return sc;
} catch (const YAML::Exception& e) {
  // A yaml-cpp exception that a check above missed still names the file.
  throw located_yaml_error(path, e);
}

}  // namespace slicelab
