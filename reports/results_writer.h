// Turns run results into the files of results/<scenario>/ (summary.json, pods.csv,
// timeseries.csv) and the terminal comparison table. Byte-stable for equal inputs.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "reports/policy_choice.h"
#include "sim/metrics/run_result.h"
#include "sim/scenario/scenario.h"

namespace slicelab {

class StreamedPodsCsv;

nlohmann::ordered_json summary_json(const Scenario& scenario, std::span<const RunResult> runs);
// pods.csv and timeseries.csv, written to `out` a few rows at a time (write_results streams them
// into the results folder); the string forms hold the same bytes.
void write_pods_csv(std::ostream& out, const Scenario& scenario, std::span<const RunResult> runs);
// The same bytes with rows formatted on `width` threads (the overload above uses
// default_jobs()); width 1 formats on the caller's thread only.
void write_pods_csv(std::ostream& out, const Scenario& scenario, std::span<const RunResult> runs,
                    int width);
std::string pods_csv(const Scenario& scenario, std::span<const RunResult> runs);
void write_timeseries_csv(std::ostream& out, std::span<const RunResult> runs);
std::string timeseries_csv(std::span<const RunResult> runs);
// The terminal table: every column when `wide`, else the most telling ones that fit in
// kTerminalColumns, and a line saying how many more --wide shows. With `per_seed` (each run's
// summaries over two or more seeds), a line under each policy holds its figures' 95% intervals.
constexpr size_t kTerminalColumns = 120;
std::string comparison_table(std::span<const RunResult> runs, bool wide = false,
                             std::span<const SeedSummaries> per_seed = {});
// Fill experiments (the FGD paper's): one row per arrived pod per policy, and a summary table.
std::string fill_csv(std::span<const RunResult> runs);
std::string fill_table(std::span<const RunResult> runs);

// Writes all result files into `dir`, replacing it only once every file is complete, so a
// failure never leaves partial output behind.
// Only where slicelab may (reports/output_guard.h; `force` as its check_output_folder).
// `streamed`: pods.csv as written while the runs went on (finished), linked in when it can be.
void write_results(const std::string& dir, const Scenario& scenario,
                   std::span<const RunResult> runs, bool force = false,
                   const StreamedPodsCsv* streamed = nullptr);

// One seed's scenario (its workload depends on the seed) and its policies' results.
struct SeedRuns {
  const Scenario* scenario = nullptr;
  std::vector<RunResult> runs;
};
// Per policy, the mean over seeds of every figure, combined as its row of the run-metrics table
// says (sim/metrics/run_metrics.h, seed_mean.h).
std::vector<RunResult> mean_over_seeds(std::span<const SeedRuns> seeds);
// Per policy, its summaries seed by seed (pointers into `seeds`).
std::vector<SeedSummaries> summaries_per_seed(std::span<const SeedRuns> seeds);
// The recommendation over the seeds (reports/policy_choice.h): means for figures, paired
// per-seed differences for noise.
PolicyChoice choose_over_seeds(std::span<const SeedRuns> seeds, std::span<const RunResult> means);
// run_warnings (reports/run_warnings.h) over seeds: the first seed's, where an identical-decision
// warning stays only when it holds in every seed.
std::vector<std::string> seeds_run_warnings(std::span<const SeedRuns> seeds);
// The summary.json of a multi-seed folder (slicelab.seeds/1): per policy the means.
nlohmann::ordered_json seeds_summary_json(std::span<const SeedRuns> seeds);
// dir/seed-<n>/ holds each seed's full results; dir/summary.json the means. Atomic as above.
void write_seed_results(const std::string& dir, std::span<const SeedRuns> seeds,
                        bool force = false);

}  // namespace slicelab
