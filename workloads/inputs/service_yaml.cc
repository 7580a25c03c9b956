#include "workloads/inputs/service_yaml.h"

#include <fmt/format.h>

#include <filesystem>

#include "workloads/csv_reader.h"
#include "workloads/go_duration.h"
#include "workloads/input_error.h"
#include "workloads/inputs/named_list.h"
#include "workloads/kube/kube_yaml_quantities.h"

namespace slicelab {
namespace {

RateCurve read_rate(const YamlReader& yaml, const YAML::Node& node, const std::string& path,
                    const std::string& base_dir) {
  if (node.IsScalar()) return RateCurve::constant(yaml.number(node, path, 0.0, kMaxRequestRate));
  yaml.require_map(node, path);
  yaml.check_keys(node, path, {"mean", "amplitude", "peak", "csv"});
  if (const YAML::Node csv = node["csv"]; csv.IsDefined()) {
    if (node.size() != 1)
      yaml.fail(node, path, "a rate from a CSV takes no other key (mean, amplitude, peak)");
    const std::string p = join_path(path, "csv");
    const std::filesystem::path file =
        std::filesystem::path(base_dir) / std::filesystem::path(yaml.string(csv, p));
    yaml.require_file(csv, p, file, "rate file");
    return read_rate_csv(file.string());
  }
  const double mean =
      yaml.number(yaml.required(node, path, "mean"), join_path(path, "mean"), 0, kMaxRequestRate);
  const double amplitude = yaml.opt_number(node, path, "amplitude", 0.0, 1.0).value_or(0.0);
  const double peak = yaml.opt_duration(node, path, "peak").value_or(14 * 3600.0);
  return RateCurve::diurnal(mean, amplitude, peak);
}

ServiceTime read_service_time(const YamlReader& yaml, const YAML::Node& node,
                              const std::string& path) {
  yaml.require_map(node, path);
  yaml.check_keys(node, path, {"mean", "cv", "exponential"});
  const YAML::Node mean_node = yaml.required(node, path, "mean");
  const double mean = yaml.duration(mean_node, join_path(path, "mean"), 1e-6);
  if (mean > 3600)
    yaml.fail(mean_node, join_path(path, "mean"), "expected a service time of at most 1h");
  const bool exponential = node["exponential"].IsDefined() &&
                           yaml.boolean(node["exponential"], join_path(path, "exponential"));
  if (exponential && node["cv"].IsDefined())
    yaml.fail(node["cv"], join_path(path, "cv"), "an exponential service time has a cv of 1");
  const double cv = yaml.opt_number(node, path, "cv", 0.0, 10.0).value_or(exponential ? 1.0 : 0.0);
  return ServiceTime::make(mean, cv, exponential);
}

AutoscaleSpec read_autoscale(const YamlReader& yaml, const YAML::Node& node,
                             const std::string& path) {
  yaml.require_map(node, path);
  yaml.check_keys(node, path,
                  {"min", "max", "metric", "target", "tolerance", "scale_up_stabilization",
                   "scale_down_stabilization"});
  AutoscaleSpec a;
  a.min_replicas =
      static_cast<int>(yaml.opt_integer(node, path, "min", 1, kMaxServiceReplicas).value_or(1));
  a.max_replicas =
      static_cast<int>(yaml.integer(yaml.required(node, path, "max"), join_path(path, "max"),
                                    a.min_replicas, kMaxServiceReplicas));
  if (auto metric = yaml.opt_string(node, path, "metric")) {
    if (*metric == "utilization")
      a.metric = ScaleMetric::kUtilization;
    else if (*metric != "concurrency")
      yaml.fail_expected(node["metric"], join_path(path, "metric"), "concurrency or utilization");
  }
  const double most = a.metric == ScaleMetric::kUtilization ? 1.0 : kMaxServiceConcurrency;
  a.target =
      yaml.number(yaml.required(node, path, "target"), join_path(path, "target"), 1e-6, most);
  a.tolerance = yaml.opt_number(node, path, "tolerance", 0.0, 1.0).value_or(a.tolerance);
  const auto window = [&](const char* key, double fallback) {
    const double s = yaml.opt_duration(node, path, key).value_or(fallback);
    if (s > 3600)
      yaml.fail(node[key], join_path(path, key), "expected a stabilization window of at most 1h");
    return s;
  };
  a.scale_up_stabilization_s = window("scale_up_stabilization", a.scale_up_stabilization_s);
  a.scale_down_stabilization_s = window("scale_down_stabilization", a.scale_down_stabilization_s);
  return a;
}

LatencySlo read_slo(const YamlReader& yaml, const YAML::Node& node, const std::string& path) {
  yaml.require_map(node, path);
  yaml.check_keys(node, path, {"p50", "p95", "p99"});
  LatencySlo slo;
  slo.p50 = yaml.opt_duration(node, path, "p50", 1e-6);
  slo.p95 = yaml.opt_duration(node, path, "p95", 1e-6);
  slo.p99 = yaml.opt_duration(node, path, "p99", 1e-6);
  if (!slo.any()) yaml.fail(node, path, "an SLO needs at least one of p50, p95, p99");
  return slo;
}

ServiceSpec read_service(const YamlReader& yaml, const YAML::Node& node, const std::string& path,
                         size_t index, const std::string& base_dir, const ModelCheck& check_model) {
  yaml.require_map(node, path);
  yaml.check_keys(node, path,
                  {"name", "replicas", "autoscale", "startup", "rate", "service_time",
                   "concurrency", "request_sm", "max_queue", "memory_per_request", "slo",
                   // each replica's request, as a pod's
                   "gpu_count", "gpu_milli", "gpu_memory_mib", "gpu_memory_used_mib",
                   "gpu_memory_percent", "cpu_milli", "memory_mib", "cpu", "memory", "resources",
                   "priority", "allowed_models", "class", "mig_profile"});
  ServiceSpec s;
  s.name = yaml.opt_string(node, path, "name").value_or(fmt::format("service-{}", index));
  // A service's `slo` is its latency targets, not a pod's queueing and JCT limits: the request
  // is read from the mapping without it.
  YAML::Node request = YAML::Clone(node);
  request.remove("slo");
  read_pod_request(yaml, request, path, s.replica, check_model);
  if (s.replica.gpu_count == 0)
    yaml.fail(node, path, "a service's replicas need a GPU (gpu_count of at least 1)");
  if (node["replicas"].IsDefined() && node["autoscale"].IsDefined())
    yaml.fail(node["autoscale"], join_path(path, "autoscale"),
              "give either replicas (a fixed count) or autoscale, not both");
  s.replicas = static_cast<int>(
      yaml.opt_integer(node, path, "replicas", 1, kMaxServiceReplicas).value_or(1));
  if (const YAML::Node a = node["autoscale"]; a.IsDefined())
    s.autoscale = read_autoscale(yaml, a, join_path(path, "autoscale"));
  if (auto startup = yaml.opt_duration(node, path, "startup")) {
    if (*startup > 86400)
      yaml.fail(node["startup"], join_path(path, "startup"), "expected a start-up of at most 1d");
    s.startup_s = *startup;
  }
  s.rate = read_rate(yaml, yaml.required(node, path, "rate"), join_path(path, "rate"), base_dir);
  s.service_time = read_service_time(yaml, yaml.required(node, path, "service_time"),
                                     join_path(path, "service_time"));
  s.concurrency = static_cast<int>(
      yaml.opt_integer(node, path, "concurrency", 1, kMaxServiceConcurrency).value_or(1));
  // A request's share of the SMs: by default a full batch fills the GPU.
  s.request_sm = yaml.opt_number(node, path, "request_sm", 1e-3, 1.0).value_or(1.0 / s.concurrency);
  s.max_queue = static_cast<int>(
      yaml.opt_integer(node, path, "max_queue", 0, kMaxServiceQueue).value_or(s.max_queue));
  if (const YAML::Node m = node["memory_per_request"]; m.IsDefined())
    s.memory_per_request_mib = kube_mebibytes(yaml, m, join_path(path, "memory_per_request"));
  if (const YAML::Node slo = node["slo"]; slo.IsDefined())
    s.slo = read_slo(yaml, slo, join_path(path, "slo"));
  return s;
}

}  // namespace

RateCurve read_rate_csv(const std::string& file) {
  CsvReader csv(file);
  const size_t time_col = csv.require_column("time");
  const size_t rate_col = csv.require_column("rate");
  RateCurve curve;
  curve.kind = RateCurve::Kind::kSteps;
  while (csv.next()) {
    if (static_cast<int64_t>(curve.steps.size()) >= kMaxRateSteps)
      csv.fail(fmt::format("more than {} rate steps", kMaxRateSteps));
    double t = 0;
    if (!parse_csv_number(csv.field(time_col), t)) {
      std::string error;
      const auto d = parse_go_duration(csv.field(time_col), error);
      if (!d) csv.fail_field(time_col, "a time in seconds or a duration such as 15m");
      t = *d;
    }
    const double rate = csv.number(rate_col, 0.0, kMaxRequestRate);
    if (curve.steps.empty() && t != 0) csv.fail("the first rate step must start at 0");
    if (!curve.steps.empty() && !(t > curve.steps.back().first))
      csv.fail(fmt::format("time {:g} does not follow the previous step's {:g}", t,
                           curve.steps.back().first));
    curve.steps.emplace_back(t, rate);
  }
  if (curve.steps.empty()) throw InputError(fmt::format("{}: no rate steps", file));
  return curve;
}

std::vector<ServiceSpec> read_service_list(const YamlReader& yaml, const YAML::Node& list,
                                           std::string_view path, const std::string& base_dir,
                                           const ModelCheck& check_model) {
  return read_named_list<ServiceSpec>(yaml, list, path, "service", kMaxServices,
                                      [&](const YAML::Node& node, const std::string& p, size_t i) {
                                        return read_service(yaml, node, p, i, base_dir,
                                                            check_model);
                                      });
}

}  // namespace slicelab
