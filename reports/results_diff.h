// `slicelab diff A[:policy] B[:policy]`: two results folders (before and after a change, or two
// policies of one folder) side by side, every metric of each compared pair of policies with its
// change and a verdict (better / worse / within noise / changed) from the seeds' noise: a paired
// test when both sides ran the same seeds, Welch's otherwise; as a table, JSON and a report.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reports/report_content.h"
#include "sim/metrics/run_metrics.h"
#include "sim/scenario/replications.h"

namespace slicelab {

// One side as written on the command line: "results/x" or "results/x:fgd".
struct DiffSide {
  std::filesystem::path folder;
  std::optional<std::string> policy;
};

// An existing folder is itself; else the text is split at the last ':' when what comes before
// is an existing folder and what follows is a name, not a path (non-empty, no '/'); else the
// whole text is the folder (and reading it says it is missing).
DiffSide parse_diff_side(std::string_view text);

// How the change of a figure is judged against seed noise.
enum class NoiseTest : uint8_t {
  kPaired,  // both sides hold the same seeds (two or more): seed-by-seed differences, Student t
  kWelch,   // the seeds differ: Welch's unequal-variance t interval of the two means
  kNone,    // one seed on each side (or no seed folders): noise unknown
};
std::string_view noise_test_name(NoiseTest t);  // "paired", "welch", "none"

enum class Verdict : uint8_t {
  kBetter,       // beyond noise, in the metric's better direction (reports/metric_direction.h)
  kWorse,        // beyond noise, the other way
  kWithinNoise,  // the 95% interval of the change holds 0
  kChanged,      // changed, and noise unknown or the metric has no better direction
  kUnchanged,    // the same figure on both sides
};
std::string_view verdict_name(Verdict v);  // "better", "worse", "within noise", ...

struct DiffRow {
  std::string a_policy, b_policy;
  const RunMetric* metric = nullptr;
  // A's and B's figure: the mean over the seeds compared (summary.json's figure for a folder
  // without seed folders).
  std::optional<double> a, b;
  std::optional<double> noise;  // half width of the change's 95% interval, when known
  std::optional<bool> beyond_noise;
  Verdict verdict = Verdict::kUnchanged;

  std::string pair() const;                      // "fgd", or "fgd -> best-fit" across names
  std::optional<double> change() const;          // b - a
  std::optional<double> change_percent() const;  // 100 (b - a) / |a|; none when a is 0
};

struct DiffFolder {
  std::string dir;
  std::vector<uint64_t> seeds;  // the seeds compared (empty: one run without a seed number)
  size_t runs = 1;              // seed runs compared (1: a single run or no seed folders)
};

struct ResultsDiff {
  DiffFolder a, b;
  NoiseTest test = NoiseTest::kNone;
  bool by_name = true;  // every policy both hold; false: the pair named on the command line
  std::vector<std::string> warnings;              // the two sides' scenarios differ, ...
  std::vector<std::string> only_in_a, only_in_b;  // policies the other folder lacks (by name)
  std::vector<DiffRow> rows;  // pair order (A's policy order), the metrics' table order

  bool noise_known() const { return test != NoiseTest::kNone; }
};

// Reads summary.json (and seed-<n>/summary.json where present) of both folders and pairs the
// policies: both named -> those two; one named -> that name on both sides; neither -> every
// policy both hold. `seeds` (--seeds) keeps those seeds (a count: each side's first N). Throws
// InputError for an unknown policy (naming the folder's), no policy in common (saying how to
// pair), a seed a side lacks, or a folder or file that is missing or malformed.
ResultsDiff diff_results(const DiffSide& a, const DiffSide& b,
                         const std::optional<SeedsOption>& seeds = std::nullopt);
ResultsDiff diff_results(const std::filesystem::path& a, const std::filesystem::path& b);

// "B against A (10 seeds, paired): better on queue_p99, cost; worse on completed; within noise
// on 14 others".
std::string verdict_line(const ResultsDiff& d);

// The terminal table (the metrics that changed, every metric when `wide`) within 120 columns,
// then the verdict line.
std::string diff_table(const ResultsDiff& d, bool wide);
// The stable document of `slicelab diff --format json` and diff.json (slicelab.diff/2).
nlohmann::ordered_json diff_json(const ResultsDiff& d);
// diff.md / diff.html's content: the verdict, the same tables, and the change of the headline
// metrics.
Report diff_report(const ResultsDiff& d);
// Writes diff.md, diff.html and diff.json into `dir` (a folder slicelab may replace:
// reports/output_guard.h, `force` as check_output_folder's).
void write_diff(const std::string& dir, const ResultsDiff& d, bool force);

}  // namespace slicelab
