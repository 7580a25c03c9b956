// Runs a scenario's policies on the same workload and cluster, in parallel threads. Each run
// is independent and seeded from (scenario seed, policy name), so the result order and content
// do not depend on the number of threads.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "sim/metrics/outcome_feed.h"
#include "sim/metrics/run_result.h"
#include "sim/scenario/scenario.h"

namespace slicelab {

// Called from worker threads with (index into `which`, share done 0..1).
using PolicyProgressFn = std::function<void(size_t, double)>;

// `first_feed`: where the first run publishes its final outcomes as it goes (OutcomeFeed).
std::vector<RunResult> run_policies(const Scenario& scenario, std::span<const size_t> which,
                                    int jobs, const PolicyProgressFn& progress = {},
                                    OutcomeFeed* first_feed = nullptr);

// `explain`: records one pod's scheduling attempts (`slicelab explain`); null: none.
RunResult run_policy(const Scenario& scenario, const PolicySpec& policy,
                     const ProgressFn& progress = {}, OutcomeFeed* feed = nullptr,
                     PlacementExplainer* explain = nullptr);

}  // namespace slicelab
