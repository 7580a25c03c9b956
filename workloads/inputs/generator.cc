#include "workloads/inputs/generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "workloads/input_error.h"
#include "workloads/input_limits.h"
#include "workloads/inputs/pod_yaml.h"

namespace slicelab {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kDay = 86400.0;

DurationDistribution read_duration(const YamlReader& yaml, const YAML::Node& node,
                                   std::string_view path) {
  DurationDistribution d;
  d.origin = yaml.where(node, path);
  if (node.IsScalar()) {
    d.a = yaml.duration(node, path, 0.001);
    return d;
  }
  yaml.check_keys(node, path, {"distribution", "value", "mean", "median", "sigma", "min", "max"});
  const std::string kind_path = join_path(path, "distribution");
  const std::string kind = yaml.string(yaml.required(node, path, "distribution"), kind_path);
  d.min_s = yaml.opt_duration(node, path, "min", 0.0).value_or(0.0);
  d.max_s = yaml.opt_duration(node, path, "max", 0.0).value_or(0.0);
  if (kind == "constant") {
    d.kind = DurationDistribution::Kind::kConstant;
    d.a = yaml.duration(yaml.required(node, path, "value"), join_path(path, "value"), 0.001);
  } else if (kind == "exponential") {
    d.kind = DurationDistribution::Kind::kExponential;
    d.a = yaml.duration(yaml.required(node, path, "mean"), join_path(path, "mean"), 0.001);
  } else if (kind == "lognormal") {
    d.kind = DurationDistribution::Kind::kLognormal;
    d.a = yaml.duration(yaml.required(node, path, "median"), join_path(path, "median"), 0.001);
    d.b = yaml.number(yaml.required(node, path, "sigma"), join_path(path, "sigma"), 0.0, 10.0);
  } else if (kind == "uniform") {
    d.kind = DurationDistribution::Kind::kUniform;
    d.a = yaml.duration(yaml.required(node, path, "min"), join_path(path, "min"), 0.001);
    d.b = yaml.duration(yaml.required(node, path, "max"), join_path(path, "max"), 0.001);
    if (d.b < d.a) yaml.fail(node["max"], join_path(path, "max"), "must not be below min");
  } else {
    yaml.fail_expected(node["distribution"], kind_path,
                       "one of constant, exponential, lognormal, uniform");
  }
  if (d.max_s > 0 && d.max_s < d.min_s)
    yaml.fail(node["max"], join_path(path, "max"), "must not be below min");
  return d;
}

}  // namespace

double DurationDistribution::sample(Rng& rng) const {
  double v = a;
  switch (kind) {
    case Kind::kConstant:
      break;
    case Kind::kExponential:
      v = rng.exponential(a);
      break;
    case Kind::kLognormal:
      v = a * std::exp(b * rng.normal());
      break;
    case Kind::kUniform:
      v = a + (b - a) * rng.uniform();
      break;
  }
  v = std::max(v, std::max(min_s, 0.001));
  if (max_s > 0) v = std::min(v, max_s);
  // A wide distribution (a lognormal sigma of 10) draws run times of 1e20 s or infinity, which
  // the engine would sample until memory runs out: refuse the draw rather than clamp silently.
  if (!(v <= kHorizonS))
    throw InputError(fmt::format(
        "{}: sampled a duration of {:g}s, beyond the simulation horizon of {} ({:g}s); set 'max' "
        "or narrow the distribution",
        origin, v, kHorizonText, kHorizonS));
  return v;
}

GeneratorSpec read_generator_spec(const YamlReader& yaml, const YAML::Node& node,
                                  std::string_view path, const ModelCheck& check_model) {
  yaml.check_keys(node, path,
                  {"pods", "horizon", "arrivals_per_hour", "diurnal_amplitude", "diurnal_peak",
                   "seed", "shapes"});
  GeneratorSpec spec;
  spec.origin = yaml.where(node, path);
  if (auto n = yaml.opt_integer(node, path, "pods", 1, kMaxPods)) spec.pod_count = *n;
  spec.horizon_s = yaml.opt_duration(node, path, "horizon", 1.0);
  if (!spec.pod_count && !spec.horizon_s)
    yaml.fail(node, path, "needs 'pods' (how many), 'horizon' (until when), or both");
  spec.arrivals_per_hour = yaml.number(yaml.required(node, path, "arrivals_per_hour"),
                                       join_path(path, "arrivals_per_hour"), 1e-6, 1e9);
  // What the generator would produce, checked before any pod is drawn: a horizon alone may ask
  // for more pods than fit, a count alone may take longer than the simulation horizon to arrive.
  const double hours = spec.horizon_s.value_or(kHorizonS) / 3600.0;
  const double expected = spec.arrivals_per_hour * hours;
  if (!spec.pod_count && expected > static_cast<double>(kMaxPods))
    yaml.fail(node["arrivals_per_hour"], join_path(path, "arrivals_per_hour"),
              fmt::format("generates about {:.0f} pods over the horizon of {:g}h, more than the "
                          "limit of {}; lower the rate or the horizon, or set 'pods'",
                          expected, hours, kMaxPods));
  if (spec.pod_count && !spec.horizon_s) {
    const double span_s = static_cast<double>(*spec.pod_count) / spec.arrivals_per_hour * 3600.0;
    if (span_s > kHorizonS)
      yaml.fail(
          node["pods"], join_path(path, "pods"),
          fmt::format("{} pods at {:g} arrivals per hour take about {:.0f}d to arrive, "
                      "beyond the simulation horizon of {}; raise the rate or set 'horizon'",
                      *spec.pod_count, spec.arrivals_per_hour, span_s / 86400.0, kHorizonText));
  }
  spec.diurnal_amplitude = yaml.opt_number(node, path, "diurnal_amplitude", 0.0, 1.0).value_or(0.0);
  spec.diurnal_peak_s = yaml.opt_duration(node, path, "diurnal_peak").value_or(14 * 3600.0);
  if (auto s = yaml.opt_integer(node, path, "seed", 0, INT64_MAX))
    spec.seed = static_cast<uint64_t>(*s);

  const std::string shapes_path = join_path(path, "shapes");
  const YAML::Node shapes = yaml.required(node, path, "shapes");
  yaml.require_seq(shapes, shapes_path);
  if (shapes.size() == 0) yaml.fail(shapes, shapes_path, "needs at least one shape");
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::string p = index_path(shapes_path, i);
    const YAML::Node s = shapes[i];
    yaml.check_keys(s, p,
                    {"name", "weight", "duration", "gpu_count", "gpu_milli", "gpu_memory_mib",
                     "cpu_milli", "memory_mib", "cpu", "memory", "resources", "gpu_memory_used_mib",
                     "gpu_memory_percent", "priority", "allowed_models", "class", "slo"});
    PodShape shape;
    shape.name = yaml.opt_string(s, p, "name").value_or(fmt::format("shape-{}", i));
    shape.weight = yaml.opt_number(s, p, "weight", 0.0, 1e9).value_or(1.0);
    shape.duration = read_duration(yaml, yaml.required(s, p, "duration"), join_path(p, "duration"));
    read_pod_request(yaml, s, p, shape.request, check_model);
    spec.shapes.push_back(std::move(shape));
  }
  double total = 0;
  for (const auto& s : spec.shapes) total += s.weight;
  if (total <= 0) yaml.fail(shapes, shapes_path, "shape weights must not all be zero");
  return spec;
}

std::vector<PodSpec> generate_pods(const GeneratorSpec& spec, uint64_t scenario_seed) {
  Rng rng(spec.seed.value_or(derive_seed(scenario_seed, "generator")));
  std::vector<double> cumulative;
  double total = 0;
  for (const auto& s : spec.shapes) cumulative.push_back(total += s.weight);

  const double base_rate = spec.arrivals_per_hour / 3600.0;
  const double peak_rate = base_rate * (1.0 + spec.diurnal_amplitude);
  std::vector<PodSpec> pods;
  if (spec.pod_count) pods.reserve(*spec.pod_count);
  double t = 0;
  uint64_t index = 0;
  std::string name;  // reused: a pod's name is built here, then copied into its PodName
  while (!spec.pod_count || index < *spec.pod_count) {
    // Thinning (Lewis-Shedler): draw at the peak rate, keep with probability rate(t)/peak.
    t += rng.exponential(1.0 / peak_rate);
    if (spec.horizon_s && t > *spec.horizon_s) break;
    // Without a horizon, a count checked against the mean rate can still run past it by chance.
    if (t > kHorizonS)
      throw InputError(
          fmt::format("{}: pod {} arrives at {:.0f}s, beyond the simulation horizon of {}; raise "
                      "arrivals_per_hour or set 'horizon'",
                      spec.origin, index, t, kHorizonText));
    if (index >= static_cast<uint64_t>(kMaxPods))
      throw InputError(fmt::format("{}: generates more than {} pods; lower the rate or the horizon",
                                   spec.origin, kMaxPods));
    if (spec.diurnal_amplitude > 0) {
      const double phase = 2 * kPi * (t - spec.diurnal_peak_s) / kDay;
      const double rate = base_rate * (1.0 + spec.diurnal_amplitude * std::cos(phase));
      if (rng.uniform() * peak_rate > rate) continue;
    }
    const double pick = rng.uniform() * total;
    const size_t k = static_cast<size_t>(
        std::upper_bound(cumulative.begin(), cumulative.end(), pick) - cumulative.begin());
    const PodShape& shape = spec.shapes[std::min(k, spec.shapes.size() - 1)];
    // Drawn before the pod is added, so that a refused draw leaves no half-made pod.
    const double duration_s = shape.duration.sample(rng);
    // Built in place in the vector, its name "<shape>-<index>" without fmt's run-time format
    // parsing (a fifth of generating a million pods).
    PodSpec& pod = pods.emplace_back(shape.request);
    std::array<char, 24> digits{};
    const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), index).ptr;
    name.assign(shape.name).push_back('-');
    name.append(digits.data(), end);
    pod.name.set(name);
    pod.arrival_s = t;
    pod.duration_s = duration_s;
    ++index;
  }
  return pods;
}

}  // namespace slicelab
