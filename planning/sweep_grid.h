// A sweep: a grid of runs of one base scenario (policies x cluster scales x workload scales x
// seeds), its enumeration by a stable grid index and its split into disjoint shards.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/replications.h"

namespace slicelab {

struct SweepSpec {
  std::string name;                   // names the output folder; default: the sweep file's stem
  std::string path;                   // the sweep file
  std::string scenario;               // the base scenario as written in the sweep file
  std::string scenario_path;          // ... resolved against the sweep file's folder
  std::vector<std::string> policies;  // names from the base scenario (default: all)
  std::vector<double> cluster_scales{1.0};
  std::vector<double> workload_scales{1.0};
  std::vector<uint64_t> seeds;  // default: the base scenario's seed

  size_t size() const {
    return policies.size() * cluster_scales.size() * workload_scales.size() * seeds.size();
  }
};

// One grid point. index = ((seed * W + workload) * C + cluster) * P + policy, so points of
// one seed and workload scale (one generated workload) are adjacent.
struct SweepPoint {
  size_t index = 0;
  size_t policy = 0, cluster = 0, workload = 0, seed = 0;  // indices into the spec's lists
};
SweepPoint sweep_point(const SweepSpec& spec, size_t index);

// The i-th of `count` disjoint parts (0-based, as Kubernetes' JOB_COMPLETION_INDEX).
struct Shard {
  size_t index = 0;
  size_t count = 1;
};
// "i/N" with 0 <= i < N; InputError otherwise.
Shard parse_shard(std::string_view text);
// The grid indices a shard runs: index % count == shard index (round robin, so every shard gets
// a similar mix of policies and sizes). The shards of one count are disjoint and cover the grid.
std::vector<size_t> shard_indices(size_t grid_size, Shard shard);

// The grid's seeds axis from the command line (`--seeds`): a list as given, or a count of seeds
// from the sweep's first one. InputError when the grid or the seeds pass their limits.
void override_sweep_seeds(SweepSpec& spec, const SeedsOption& seeds);

// Reads a sweep file; loads the base scenario to check policy names and default the seeds.
// InputError with file:line:column on bad input.
SweepSpec read_sweep_spec(const std::string& path);

}  // namespace slicelab
