// Reads a list of inference services from YAML (workload.services; docs/inference-services.md#
// services-in-a-scenario): each replica's request, its count or autoscaler, the request-rate
// curve, the service time, batching and the latency SLO.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>
#include <vector>

#include "workloads/inputs/pod_yaml.h"
#include "workloads/service_spec.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// Every rule violation is a located InputError: names unique, at most kMaxServices services,
// `replicas` and `autoscale` not both, counts within kMaxServiceReplicas, a rate CSV (relative
// to `base_dir`) with columns `time` and `rate`, times strictly increasing from 0, at most
// kMaxRateSteps rows.
std::vector<ServiceSpec> read_service_list(const YamlReader& yaml, const YAML::Node& list,
                                           std::string_view path, const std::string& base_dir,
                                           const ModelCheck& check_model = {});

// A rate CSV alone (columns `time`, a duration or seconds, and `rate`, requests per second).
RateCurve read_rate_csv(const std::string& file);

}  // namespace slicelab
