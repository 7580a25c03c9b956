#include "planning/sweep_grid.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <set>

#include "sim/scenario/scenario.h"
#include "workloads/input_error.h"
#include "workloads/input_limits.h"
#include "workloads/plain_file_name.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

SweepPoint sweep_point(const SweepSpec& spec, size_t index) {
  SweepPoint p;
  p.index = index;
  size_t rest = index;
  p.policy = rest % spec.policies.size();
  rest /= spec.policies.size();
  p.cluster = rest % spec.cluster_scales.size();
  rest /= spec.cluster_scales.size();
  p.workload = rest % spec.workload_scales.size();
  rest /= spec.workload_scales.size();
  p.seed = rest;
  return p;
}

Shard parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  Shard s;
  auto num = [&](std::string_view v, size_t& out) {
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    return ec == std::errc{} && end == v.data() + v.size() && !v.empty();
  };
  if (slash == std::string_view::npos || !num(text.substr(0, slash), s.index) ||
      !num(text.substr(slash + 1), s.count) || s.count == 0 || s.index >= s.count)
    throw InputError(fmt::format(
        "--shard '{}': expected I/N with 0 <= I < N (I is 0-based, e.g. 0/4 ... 3/4)", text));
  return s;
}

std::vector<size_t> shard_indices(size_t grid_size, Shard shard) {
  std::vector<size_t> out;
  for (size_t i = shard.index; i < grid_size; i += shard.count) out.push_back(i);
  return out;
}

namespace {

std::vector<double> read_scales(const YamlReader& yaml, const YAML::Node& node, const char* key) {
  yaml.require_seq(node, key);
  if (node.size() == 0) yaml.fail(node, key, "needs at least one value");
  std::vector<double> out;
  std::set<double> seen;
  for (size_t i = 0; i < node.size(); ++i) {
    const double v = yaml.number(node[i], index_path(key, i), 0.001, 1000.0);
    if (!seen.insert(v).second) yaml.fail(node[i], index_path(key, i), "repeats an earlier value");
    out.push_back(v);
  }
  return out;
}

}  // namespace

void override_sweep_seeds(SweepSpec& spec, const SeedsOption& seeds) {
  std::vector<uint64_t> out = seeds.list;
  if (out.empty()) {
    const uint64_t first = spec.seeds.empty() ? 0 : spec.seeds.front();
    for (size_t i = 0; i < seeds.count.value_or(1); ++i)
      out.push_back((first + i) % (static_cast<uint64_t>(INT64_MAX) + 1));
  }
  if (out.size() > static_cast<size_t>(kMaxSeeds))
    throw InputError(
        fmt::format("--seeds: {} seeds, more than a sweep's limit of {}", out.size(), kMaxSeeds));
  spec.seeds = std::move(out);
  if (static_cast<double>(spec.size()) > static_cast<double>(kMaxSweepPoints))
    throw InputError(fmt::format("--seeds: the grid has {} points, more than the limit of {}",
                                 spec.size(), kMaxSweepPoints));
}

SweepSpec read_sweep_spec(const std::string& path) try {
  const YAML::Node root = load_yaml_file(path);
  const YamlReader yaml(path);
  yaml.require_map(root, "");
  yaml.check_keys(root, "",
                  {"name", "description", "scenario", "policies", "cluster_scales",
                   "workload_scales", "seeds"});
  SweepSpec spec;
  spec.path = path;
  spec.name =
      yaml.opt_string(root, "", "name").value_or(std::filesystem::path(path).stem().string());
  // The name becomes a folder (results/<name>-sweep): a path there could replace any folder.
  if (const auto problem = plain_file_name_problem(spec.name)) {
    if (root["name"].IsDefined()) yaml.fail(root["name"], "name", *problem);
    yaml.fail(root, "name",
              fmt::format("no name: key, and the file's name (without .yaml) {}; add a name: key",
                          *problem));
  }
  const YAML::Node sn = yaml.required(root, "", "scenario");
  spec.scenario = yaml.string(sn, "scenario");
  spec.scenario_path = (std::filesystem::path(path).parent_path() / spec.scenario).string();
  yaml.require_file(sn, "scenario", spec.scenario_path, "scenario file");
  const Scenario base = load_scenario(spec.scenario_path);
  if (base.engine.fill && root["workload_scales"].IsDefined())
    yaml.fail(root["workload_scales"], "workload_scales",
              "a fill experiment's workload cannot be scaled");
  if (const YAML::Node p = root["policies"]; p.IsDefined()) {
    spec.policies = yaml.string_list(p, "policies");
    if (spec.policies.empty()) yaml.fail(p, "policies", "needs at least one policy");
    std::set<std::string> seen;
    for (size_t i = 0; i < spec.policies.size(); ++i) {
      const auto& name = spec.policies[i];
      const bool known = std::any_of(base.policies.begin(), base.policies.end(),
                                     [&](const PolicySpec& s) { return s.name == name; });
      const YAML::Node at = p.IsSequence() ? p[i] : p;
      if (!known) {
        std::vector<std::string> names;
        for (const auto& s : base.policies) names.push_back(s.name);
        yaml.fail(at, index_path("policies", i),
                  fmt::format("no policy named '{}' in {} (it has: {})", name, spec.scenario,
                              fmt::join(names, ", ")));
      }
      if (!seen.insert(name).second)
        yaml.fail(at, index_path("policies", i), fmt::format("policy '{}' repeats", name));
    }
  } else {
    for (const auto& s : base.policies) spec.policies.push_back(s.name);
  }
  if (const YAML::Node c = root["cluster_scales"]; c.IsDefined())
    spec.cluster_scales = read_scales(yaml, c, "cluster_scales");
  if (const YAML::Node w = root["workload_scales"]; w.IsDefined())
    spec.workload_scales = read_scales(yaml, w, "workload_scales");
  if (const YAML::Node s = root["seeds"]; s.IsDefined()) {
    yaml.require_seq(s, "seeds");
    if (s.size() == 0) yaml.fail(s, "seeds", "needs at least one seed");
    if (s.size() > static_cast<size_t>(kMaxSeeds))
      yaml.fail(s, "seeds",
                fmt::format("has {} seeds, more than the limit of {}", s.size(), kMaxSeeds));
    std::set<uint64_t> seen;
    for (size_t i = 0; i < s.size(); ++i) {
      const auto v =
          static_cast<uint64_t>(yaml.integer(s[i], index_path("seeds", i), 0, INT64_MAX));
      if (!seen.insert(v).second)
        yaml.fail(s[i], index_path("seeds", i), "repeats an earlier seed");
      spec.seeds.push_back(v);
    }
  } else {
    spec.seeds.push_back(base.seed);
  }
  // The grid and its largest scaled point must fit the limits a scenario itself is held to.
  const double grid =
      static_cast<double>(spec.policies.size()) * static_cast<double>(spec.cluster_scales.size()) *
      static_cast<double>(spec.workload_scales.size()) * static_cast<double>(spec.seeds.size());
  if (grid > static_cast<double>(kMaxSweepPoints))
    yaml.fail(root, "",
              fmt::format("the grid has {:.0f} points, more than the limit of {}", grid,
                          kMaxSweepPoints));
  const double cluster_max =
      *std::max_element(spec.cluster_scales.begin(), spec.cluster_scales.end());
  const double workload_max =
      *std::max_element(spec.workload_scales.begin(), spec.workload_scales.end());
  if (static_cast<double>(base.cluster.node_count()) * cluster_max >
          static_cast<double>(kMaxNodes) ||
      static_cast<double>(base.cluster.gpu_count()) * cluster_max > static_cast<double>(kMaxGpus))
    yaml.fail(root["cluster_scales"], "cluster_scales",
              fmt::format("x{:g} makes a cluster of more than {} nodes or {} GPUs", cluster_max,
                          kMaxNodes, kMaxGpus));
  if (static_cast<double>(base.pods.size()) * workload_max > static_cast<double>(kMaxPods))
    yaml.fail(root["workload_scales"], "workload_scales",
              fmt::format("x{:g} makes a workload of more than {} pods", workload_max, kMaxPods));
  return spec;
} catch (const YAML::Exception& e) {
  // A yaml-cpp exception that a check above missed still names the file.
  throw located_yaml_error(path, e);
}

}  // namespace slicelab
