// The `topology:` key of a scenario's node group: a built-in topology name or
// {nvidia_smi: FILE}, checked against the group's gpus_per_node, with located errors.
#pragma once

#include <yaml-cpp/yaml.h>

#include <memory>
#include <string>

#include "sim/topology/gpu_topology.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// `node` is the value of the key, `path` its field path; a FILE is relative to the folder of
// `scenario_path`. Throws InputError.
std::shared_ptr<const GpuTopology> read_topology(const YamlReader& yaml, const YAML::Node& node,
                                                 const std::string& path,
                                                 const std::string& scenario_path,
                                                 int gpus_per_node);

}  // namespace slicelab
