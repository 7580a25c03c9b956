// The scenario keys that load imported traces: cluster.openb_nodes, workload.openb and
// workload.csv (docs/scenario-format.md). Kept apart from scenario_loader.cc's own sections.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "sim/cluster_spec.h"
#include "sim/gpu_catalog.h"
#include "workloads/inputs/openb_reader.h"
#include "workloads/inputs/pod_yaml.h"
#include "workloads/job_spec.h"
#include "workloads/pod_spec.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// True when the scenario reads openb nodes or pods, which may name the undisclosed G1..G3.
bool scenario_uses_openb(const YAML::Node& root);

// Adds G1, G2, G3 (kOpenbAssumedModels) to the catalog where it has no model of that name.
// Called before gpu_models is read, so that a scenario can override one field of them.
void add_openb_assumed_models(GpuCatalog& catalog);

// Node groups for the openb node list, with catalog indices; an InputError names a GPU type
// the catalog lacks (an openb type that gpu_models must define).
ClusterSpec openb_cluster(const std::vector<OpenbNodeGroup>& groups, const GpuCatalog& catalog,
                          const std::string& file);

// cluster.openb_nodes: a path relative to the scenario file.
ClusterSpec read_openb_nodes_key(const YamlReader& yaml, const YAML::Node& node,
                                 const std::string& scenario_path, const GpuCatalog& catalog);

// workload.openb and workload.csv; `source` receives the scenario's workload_source text.
std::vector<PodSpec> read_openb_workload(const YamlReader& yaml, const YAML::Node& node,
                                         const std::string& scenario_path,
                                         const ModelCheck& check_model, std::string& source);
std::vector<PodSpec> read_csv_workload(const YamlReader& yaml, const YAML::Node& node,
                                       const std::string& scenario_path,
                                       const ModelCheck& check_model, std::string& source);

// workload.job_trace: a public training-job trace (docs/job-traces.md), read by its format's
// reader; `source` receives the workload_source text (with the jobs skipped, if any).
std::vector<JobSpec> read_job_trace_workload(const YamlReader& yaml, const YAML::Node& node,
                                             const std::string& scenario_path,
                                             const ModelCheck& check_model, std::string& source);

}  // namespace slicelab
