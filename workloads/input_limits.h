// The limits on what numeric inputs may ask for: the simulation horizon that bounds every time
// and duration, and the largest counts, so that no input makes a run exhaust memory or time.
#pragma once

#include <cstdint>

namespace slicelab {

// Every time and duration of a scenario or trace (arrivals, run times, engine.until, generator
// horizons, SLO targets, sampled durations) lies within one year of simulated time. It also
// rejects the infinities that a huge value reaches after unit conversion ("1e308h").
inline constexpr double kHorizonS = 365.0 * 86400.0;
inline constexpr const char* kHorizonText = "365d";

// Time-series samples of one run: (engine.until, or the horizon) / engine.sample_interval.
// A sample is 40 bytes, so one run's series stays under 40 MB.
inline constexpr int64_t kMaxSamples = 1'000'000;

// Pods of one workload, after generation, import, fill sampling or a sweep's scaling. Measured
// (docs/performance.md, "Memory of a million-pod replay"): the workload holds 104 bytes per pod
// (more for names over 15 characters), a run about 70 more per pod per policy running at once
// (about 120 when every pod's request differs), so the largest workload takes about 0.5 GB to
// validate and about 0.9 GB to run with one policy.
inline constexpr int64_t kMaxPods = 5'000'000;

// Nodes and GPUs of one cluster (all node groups together, after a sweep's scaling).
inline constexpr int64_t kMaxNodes = 1'000'000;
inline constexpr int64_t kMaxGpus = 4'000'000;

// GPUs of one node and tenants of one GPU: the simulator's per-node and per-GPU scratch arrays
// are this size, so the loaders reject more (a trace's node, a sharing mode's replicas).
inline constexpr int kMaxGpusPerNode = 64;
inline constexpr int kMaxTenantsPerGpu = 64;

// Seeds of a scenario's `seeds:` list or a sweep, and grid points of one sweep.
inline constexpr int64_t kMaxSeeds = 1'000;
inline constexpr int64_t kMaxSweepPoints = 1'000'000;

}  // namespace slicelab
