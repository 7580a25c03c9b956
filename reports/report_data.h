// What a report is drawn from: a results folder (summary.json, pods.csv, timeseries.csv,
// fill.csv, seed-<n>/, plan.json) read back into memory, with optional files and columns absent.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab {

// pods.csv of one policy: the values the distributions are drawn from.
struct PolicyPods {
  std::string policy;
  std::vector<double> queue_delay_s;    // pods that started
  std::vector<double> jct_s;            // pods that completed
  std::vector<double> isolation_error;  // optional column `isolation_error`, non-empty cells
  // "<status>: <reason kind>" -> pods, for pods that failed, were never placed or still pending.
  std::map<std::string, size_t> not_run;
};

// timeseries.csv of one policy, in time order.
struct PolicyTimeseries {
  std::string policy;
  std::vector<double> time_s, allocation_ratio, fragmentation_ratio, sm_utilization;
};

// fill.csv of one policy, one entry per arrived pod; all shares of the GPU capacity.
struct PolicyFill {
  std::string policy;
  std::vector<double> arrived_ratio, allocated_ratio, fragmented_ratio, failed_ratio;
};

struct ReportData {
  std::filesystem::path dir;
  std::optional<nlohmann::ordered_json> summary;  // summary.json
  std::optional<nlohmann::ordered_json> plan;     // plan.json (the capacity planner's)
  // Where pods/timeseries/fill were read: "" for `dir` itself, "seed-<n>" for a multi-seed
  // folder (whose own summary.json holds means over seeds and has no per-pod files).
  std::string detail_from;
  bool has_isolation_column = false;  // pods.csv carries `isolation_error`
  std::vector<PolicyPods> pods;       // in summary.json's policy order where it has one
  std::vector<PolicyTimeseries> timeseries;
  std::vector<PolicyFill> fill;
};

// Reads `dir`. Needs summary.json or plan.json; every other file is optional. Throws
// std::runtime_error naming the file on a missing folder, unreadable or malformed file.
ReportData load_report_data(const std::filesystem::path& dir);

// The leading phrase of a pod's reason ("out of memory on a100-0 GPU 1: needs ..." -> "out of
// memory"), so that pods failing for the same cause are counted together.
std::string reason_kind(std::string_view reason);

// Whether some pod of pods.csv had an isolation error (a capped pod): the isolation section is
// drawn only then.
bool any_capped_pod(const ReportData& data);

// The policy names of summary.json, in order (empty without a summary).
std::vector<std::string> summary_policies(const ReportData& data);

}  // namespace slicelab
