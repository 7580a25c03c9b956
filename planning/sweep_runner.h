// Runs the grid points of a sweep (all of them, or one shard's) on a pool of threads. Each
// point is a pure function of the sweep spec and its grid index, so results do not depend on
// the thread count, the shard split or the order in which points finish.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "planning/sweep_grid.h"
#include "sim/metrics/run_result.h"

namespace slicelab {

struct SweepRow {
  SweepPoint point;
  size_t nodes = 0, gpus = 0, pods = 0;
  RunSummary summary;
};

// Called from worker threads with (position in `indices`, share of that run done 0..1).
using SweepProgressFn = std::function<void(size_t, double)>;

// Rows in the order of `indices`.
std::vector<SweepRow> run_sweep(const SweepSpec& spec, std::span<const size_t> indices, int jobs,
                                const SweepProgressFn& progress = {});

}  // namespace slicelab
