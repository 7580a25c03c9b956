#include "sim/scenario/import_sources.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <string_view>

#include "workloads/input_error.h"
#include "workloads/inputs/acme_reader.h"
#include "workloads/inputs/alibaba_spot_reader.h"
#include "workloads/inputs/csv_trace_reader.h"
#include "workloads/inputs/helios_reader.h"
#include "workloads/inputs/job_import.h"
#include "workloads/inputs/pai2020_reader.h"
#include "workloads/inputs/philly_reader.h"
#include "workloads/rfc3339.h"

namespace slicelab {
namespace {

// A file named by a scenario key, relative to the scenario file; a missing one is reported at
// the key, since the path is what the user has to fix.
std::string resolve(const YamlReader& yaml, const YAML::Node& node, const std::string& path,
                    const std::string& scenario_path, std::string& rel) {
  rel = yaml.string(node, path);
  const auto file = std::filesystem::path(scenario_path).parent_path() / rel;
  yaml.require_file(node, path, file, "file");
  return file.string();
}

}  // namespace

bool scenario_uses_openb(const YAML::Node& root) {
  if (!root.IsMap()) return false;
  // A missing key yields an invalid node whose type cannot be asked: test IsDefined first.
  const YAML::Node c = root["cluster"];
  const YAML::Node w = root["workload"];
  return (c.IsDefined() && c.IsMap() && c["openb_nodes"].IsDefined()) ||
         (w.IsDefined() && w.IsMap() && w["openb"].IsDefined());
}

void add_openb_assumed_models(GpuCatalog& catalog) {
  for (const auto& a : kOpenbAssumedModels) {
    if (catalog.find(a.name)) continue;
    const GpuModel* base = catalog.find(a.like);
    if (!base) continue;  // a catalog without the base model: gpu_models must define it
    GpuModel m = *base;
    m.name = a.name;
    catalog.upsert(std::move(m));
  }
}

ClusterSpec openb_cluster(const std::vector<OpenbNodeGroup>& groups, const GpuCatalog& catalog,
                          const std::string& file) {
  ClusterSpec spec;
  for (const OpenbNodeGroup& g : groups) {
    NodeGroup group;
    group.name = g.name;
    group.count = g.count;
    group.cpu_milli = g.cpu_milli;
    group.memory_mib = g.memory_mib;
    group.gpus_per_node = g.gpus_per_node;
    if (g.gpus_per_node > 0) {
      const auto idx = catalog.index_of(g.gpu_model);
      if (!idx)
        throw InputError(
            fmt::format("{}: unknown GPU model '{}' (known: {}); define it under gpu_models", file,
                        g.gpu_model, catalog.names()));
      group.gpu_model = *idx;
    }
    spec.groups.push_back(std::move(group));
  }
  return spec;
}

ClusterSpec read_openb_nodes_key(const YamlReader& yaml, const YAML::Node& node,
                                 const std::string& scenario_path, const GpuCatalog& catalog) {
  std::string rel;
  const std::string file = resolve(yaml, node, "cluster.openb_nodes", scenario_path, rel);
  return openb_cluster(read_openb_nodes(file), catalog, file);
}

std::vector<PodSpec> read_openb_workload(const YamlReader& yaml, const YAML::Node& node,
                                         const std::string& scenario_path,
                                         const ModelCheck& check_model, std::string& source) {
  const std::string path = "workload.openb";
  yaml.check_keys(node, path, {"pods", "duration"});
  std::string rel;
  const std::string file =
      resolve(yaml, yaml.required(node, path, "pods"), join_path(path, "pods"), scenario_path, rel);
  OpenbPodOptions options;
  options.default_duration_s =
      yaml.opt_duration(node, path, "duration", 0.001).value_or(options.default_duration_s);
  source = "openb " + rel;
  return read_openb_pods(file, options, check_model);
}

std::vector<PodSpec> read_csv_workload(const YamlReader& yaml, const YAML::Node& node,
                                       const std::string& scenario_path,
                                       const ModelCheck& check_model, std::string& source) {
  const std::string path = "workload.csv";
  yaml.check_keys(node, path, {"file", "columns", "units", "separator", "time_origin"});
  CsvTraceMapping m;
  std::string rel;
  m.file =
      resolve(yaml, yaml.required(node, path, "file"), join_path(path, "file"), scenario_path, rel);
  const std::string cp = join_path(path, "columns");
  const YAML::Node columns = yaml.required(node, path, "columns");
  yaml.require_map(columns, cp);
  // A column is "name" or "name:unit"; a unit check that fails points at the column's value.
  for (const auto& kv : columns) {
    const std::string field = kv.first.Scalar();
    add_csv_column(m, field, yaml.string(kv.second, join_path(cp, field)));
    if (auto u = m.units.find(field); u != m.units.end())
      if (auto err = check_csv_unit(field, u->second))
        yaml.fail(kv.second, join_path(cp, field), *err);
  }
  if (auto err = check_csv_mapping(m)) yaml.fail(columns, cp, *err);
  if (const YAML::Node o = node["time_origin"]; o.IsDefined()) {
    std::string error;
    m.time_origin = parse_rfc3339(yaml.string(o, join_path(path, "time_origin")), error);
    if (!m.time_origin) yaml.fail(o, join_path(path, "time_origin"), error);
  }
  if (const YAML::Node u = node["units"]; u.IsDefined()) {
    const std::string up = join_path(path, "units");
    yaml.check_keys(u, up, {"time", "memory", "cpu"});
    if (auto t = yaml.opt_string(u, up, "time")) {
      const auto v = csv_time_unit(*t);
      if (!v) yaml.fail_expected(u["time"], join_path(up, "time"), "s, ms, min or h");
      m.time_unit_s = *v;
    }
    if (auto t = yaml.opt_string(u, up, "memory")) {
      const auto v = csv_memory_unit(*t);
      if (!v) yaml.fail_expected(u["memory"], join_path(up, "memory"), "MiB or GiB");
      m.memory_unit_mib = *v;
    }
    if (auto t = yaml.opt_string(u, up, "cpu")) {
      const auto v = csv_cpu_unit(*t);
      if (!v) yaml.fail_expected(u["cpu"], join_path(up, "cpu"), "milli or cores");
      m.cpu_unit_milli = *v;
    }
  }
  if (auto s = yaml.opt_string(node, path, "separator")) {
    if (s->size() != 1)
      yaml.fail_expected(node["separator"], join_path(path, "separator"), "a single character");
    m.separator = (*s)[0];
  }
  source = "csv " + rel;
  return read_csv_trace(m, check_model);
}

std::vector<JobSpec> read_job_trace_workload(const YamlReader& yaml, const YAML::Node& node,
                                             const std::string& scenario_path,
                                             const ModelCheck& check_model, std::string& source) {
  const std::string path = "workload.job_trace";
  yaml.require_map(node, path);
  yaml.check_keys(node, path,
                  {"format", "file", "job_table", "keep_cpu_only", "run_time", "checkpoint"});
  const YAML::Node f = yaml.required(node, path, "format");
  const std::string format = yaml.string(f, join_path(path, "format"));
  constexpr std::string_view kFormats[] = {"philly", "helios", "acme", "pai2020", "alibaba-spot"};
  if (std::find(std::begin(kFormats), std::end(kFormats), format) == std::end(kFormats))
    yaml.fail_expected(f, join_path(path, "format"),
                       "philly, helios, acme, pai2020 or alibaba-spot");
  std::string rel;
  const std::string file =
      resolve(yaml, yaml.required(node, path, "file"), join_path(path, "file"), scenario_path, rel);
  JobImportOptions options;
  options.check_model = check_model;
  if (const YAML::Node k = node["keep_cpu_only"]; k.IsDefined())
    options.keep_cpu_only = yaml.boolean(k, join_path(path, "keep_cpu_only"));
  // Each format's own key: given to another format, it would be silently ignored.
  for (const auto& [key, owner] :
       {std::pair{"job_table", "pai2020"}, std::pair{"run_time", "philly"}})
    if (node[key].IsDefined() && format != owner)
      yaml.fail(node[key], join_path(path, key), fmt::format("is for format {} only", owner));
  JobImportCounts counts;
  std::vector<JobSpec> jobs;
  if (format == "philly") {
    PhillyOptions philly;
    static_cast<JobImportOptions&>(philly) = options;
    if (auto rt = yaml.opt_string(node, path, "run_time")) {
      if (*rt == "all-attempts")
        philly.run_time = PhillyRunTime::kAllAttempts;
      else if (*rt != "last-attempt")
        yaml.fail_expected(node["run_time"], join_path(path, "run_time"),
                           "last-attempt or all-attempts");
    }
    jobs = read_philly_jobs(file, philly, &counts);
  } else if (format == "helios") {
    jobs = read_helios_jobs(file, options, &counts);
  } else if (format == "acme") {
    jobs = read_acme_jobs(file, options, &counts);
  } else if (format == "pai2020") {
    std::string job_rel;
    const std::string job_table =
        node["job_table"].IsDefined()
            ? resolve(yaml, node["job_table"], join_path(path, "job_table"), scenario_path, job_rel)
            : std::string();
    jobs = read_pai2020_jobs(file, job_table, options, &counts);
  } else {
    jobs = read_alibaba_spot_jobs(file, options, &counts);
  }
  // The traces record no checkpoints: one interval for every job, when the scenario gives it.
  if (const auto every = yaml.opt_duration(node, path, "checkpoint", 1.0))
    for (JobSpec& job : jobs) job.checkpoint_s = *every;
  source = fmt::format("{} trace {}: {} jobs", format, rel, jobs.size());
  if (const int64_t skipped = counts.skipped_total(); skipped > 0)
    source += fmt::format(" ({} records skipped, docs/job-traces.md)", skipped);
  return jobs;
}

}  // namespace slicelab
