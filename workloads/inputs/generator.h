// Synthetic workloads: seeded Poisson arrivals (optionally diurnal) over a weighted mix of pod
// shapes, each with its own run-time distribution. Same spec and seed give the same pods.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/inputs/pod_yaml.h"
#include "workloads/pod_spec.h"
#include "workloads/rng.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

struct DurationDistribution {
  enum class Kind { kConstant, kExponential, kLognormal, kUniform };
  Kind kind = Kind::kConstant;
  double a = 60.0;  // constant value, exponential mean, lognormal median, uniform min
  double b = 0.0;   // lognormal sigma, uniform max
  double min_s = 0.0;
  double max_s = 0.0;  // 0 = no upper clamp
  // "file:line:column: path" of the distribution, for a sampled value beyond the horizon.
  std::string origin;

  double sample(Rng& rng) const;
};

struct PodShape {
  std::string name;
  double weight = 1.0;
  PodSpec request;  // request fields only; name, arrival, duration are generated
  DurationDistribution duration;
};

struct GeneratorSpec {
  std::optional<uint64_t> pod_count;
  std::optional<double> horizon_s;
  double arrivals_per_hour = 60.0;
  double diurnal_amplitude = 0.0;  // 0 = flat rate; 0.5 = rate swings +-50% over a day
  double diurnal_peak_s = 14 * 3600.0;
  std::optional<uint64_t> seed;  // default: the scenario's seed
  std::vector<PodShape> shapes;
  std::string origin;  // "file:line:column: path" of the generator, for arrivals beyond the horizon
};

GeneratorSpec read_generator_spec(const YamlReader& yaml, const YAML::Node& node,
                                  std::string_view path, const ModelCheck& check_model = {});
std::vector<PodSpec> generate_pods(const GeneratorSpec& spec, uint64_t scenario_seed);

}  // namespace slicelab
