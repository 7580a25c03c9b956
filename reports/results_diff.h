// `slicelab diff A B`: two results folders (before and after a change) side by side, every
// metric of every policy both hold with its change, judged against seed noise where a folder
// holds several seeds (seed-<n>/); as a terminal table, a JSON document and a report.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "reports/report_content.h"
#include "sim/metrics/run_metrics.h"

namespace slicelab {

struct DiffRow {
  std::string policy;
  const RunMetric* metric = nullptr;
  std::optional<double> a, b;  // A's and B's figure (means over seeds in a multi-seed folder)
  // |b - a| against two standard errors of the difference; nullopt: noise unknown (one seed).
  std::optional<bool> beyond_noise;
  std::optional<double> noise;  // that bound (two standard errors), when known

  std::optional<double> change() const;          // b - a
  std::optional<double> change_percent() const;  // 100 (b - a) / |a|; none when a is 0
};

struct ResultsDiff {
  std::string a_dir, b_dir;
  size_t a_seeds = 1, b_seeds = 1;                // seed-<n>/ folders read (1: a single run)
  std::vector<std::string> only_in_a, only_in_b;  // policies the other folder lacks
  std::vector<DiffRow> rows;                      // A's policy order, the metrics' table order

  bool noise_known() const { return a_seeds > 1 || b_seeds > 1; }
};

// Reads summary.json (and seed-<n>/summary.json where present) of both folders. Throws
// std::runtime_error / InputError naming the folder or file that is missing or malformed.
ResultsDiff diff_results(const std::filesystem::path& a, const std::filesystem::path& b);

// The terminal table: the metrics that changed (every metric when `wide`), within 120 columns.
std::string diff_table(const ResultsDiff& d, bool wide);
// The stable document of `slicelab diff --format json` and diff.json (slicelab.diff/1).
nlohmann::ordered_json diff_json(const ResultsDiff& d);
// diff.md / diff.html's content: the same tables, and the change of the headline metrics.
Report diff_report(const ResultsDiff& d);
// Writes diff.md, diff.html and diff.json into `dir` (a folder slicelab may replace:
// reports/output_guard.h, `force` as check_output_folder's).
void write_diff(const std::string& dir, const ResultsDiff& d, bool force);

}  // namespace slicelab
