// `slicelab diff --fail-if worse:METRIC,...`: the conditions under which a diff fails a CI job,
// and which of them a diff meets. Only a change beyond noise counts: within noise never fails.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reports/results_diff.h"
#include "sim/metrics/run_metrics.h"

namespace slicelab {

// One condition: `metric` got worse (beyond noise) in any compared pair.
struct FailCondition {
  const RunMetric* metric = nullptr;
  std::string text;  // as written: "worse:queue_p99"
};

// "worse:queue_p99,worse:completed" (METRIC as decide: names it, sim/metrics/decide_spec.h).
// std::nullopt and `why` set when malformed, the metric is unknown or has no better direction.
std::optional<std::vector<FailCondition>> parse_fail_if(std::string_view text, std::string& why);

// One line per condition that held and per pair it held in: "worse:queue_p99 held: fgd ->
// best-fit queue_delay_s.p99 100 s -> 200 s (+100s, beyond noise)".
std::vector<std::string> failed_conditions(const ResultsDiff& d,
                                           const std::vector<FailCondition>& conditions);

}  // namespace slicelab
