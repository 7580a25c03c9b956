// Reads one pod, or a list of pods, from YAML: the format shared by inline scenario pods
// and trace files (docs/scenario-format.md#pods). Every rule violation is a located InputError.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/pod_spec.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// Returns an error text for a GPU model name the caller does not know, or std::nullopt.
using ModelCheck = std::function<std::optional<std::string>(std::string_view)>;

// Reads the request fields (GPU, CPU, memory, models, class, priority, SLO) of `node` into
// `pod`, leaving name, arrival and duration to the caller. Shared with generator shapes.
void read_pod_request(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                      PodSpec& pod, const ModelCheck& check_model = {});

PodSpec read_pod(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                 size_t index, const ModelCheck& check_model = {});
std::vector<PodSpec> read_pod_list(const YamlReader& yaml, const YAML::Node& list,
                                   std::string_view path, const ModelCheck& check_model = {});

// A trace file: a mapping with a `pods:` list (docs/scenario-format.md#trace-files).
std::vector<PodSpec> read_trace_file(const std::string& path, const ModelCheck& check_model = {});

}  // namespace slicelab
