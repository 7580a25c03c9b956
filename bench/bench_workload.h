// The replay benches' shared workload: sim_throughput's cluster of A100 nodes and its openb-like
// pod mix, so that every bench that says "sim_throughput's trace" replays exactly that trace.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/cluster_spec.h"
#include "sim/gpu_catalog.h"
#include "workloads/inputs/generator.h"

namespace slicelab::bench {

inline constexpr int kGpusPerNode = 8;

// `nodes` nodes of 8 A100-80GB, 128 CPUs and 1 TiB of memory each.
inline ClusterSpec a100_cluster(int nodes) {
  ClusterSpec c;
  NodeGroup g;
  g.name = "a100";
  g.count = nodes;
  g.cpu_milli = 128'000;
  g.memory_mib = 1024 * 1024;
  g.gpu_model = *GpuCatalog::builtin().index_of("A100-80GB");
  g.gpus_per_node = kGpusPerNode;
  c.groups.push_back(g);
  return c;
}

inline PodShape lognormal_shape(std::string name, double weight, int gpus, int milli,
                                int64_t gpu_mem, int64_t cpu, double median_s) {
  PodShape s;
  s.name = std::move(name);
  s.weight = weight;
  s.request.gpu_count = gpus;
  s.request.gpu_milli = milli;
  s.request.gpu_memory_mib = gpu_mem;
  s.request.cpu_milli = cpu;
  s.request.memory_mib = cpu * 4;
  s.duration.kind = DurationDistribution::Kind::kLognormal;
  s.duration.a = median_s;
  s.duration.b = 0.8;
  s.duration.min_s = 30;
  return s;
}

// A mix like the openb trace: many one-GPU and fractional pods, a few large ones (generator seed
// 42). Mean GPU-seconds per pod ~ 0.4*0.3*2470 + 0.35*4940 + 0.1*2*4940 + 0.1*4*7400 +
// 0.05*8*9870 ~ 9,150 (lognormal mean = median * e^(0.32)), so 2,830 arrivals an hour offer about
// 90% of 1,000 nodes' 8,000 GPUs: queues form and retries happen.
inline std::vector<PodSpec> openb_like_pods(uint64_t count, double arrivals_per_hour) {
  GeneratorSpec g;
  g.pod_count = count;
  g.shapes = {lognormal_shape("frac", 40, 1, 300, 10'000, 4'000, 1800),
              lognormal_shape("one", 35, 1, 1000, 30'000, 8'000, 3600),
              lognormal_shape("two", 10, 2, 1000, 40'000, 16'000, 3600),
              lognormal_shape("four", 10, 4, 1000, 60'000, 32'000, 5400),
              lognormal_shape("eight", 5, 8, 1000, 70'000, 64'000, 7200)};
  g.arrivals_per_hour = arrivals_per_hour;
  return generate_pods(g, 42);
}

}  // namespace slicelab::bench
