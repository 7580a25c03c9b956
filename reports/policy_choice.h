// The recommendation of a compare: which policy to run by the scenario's `decide:` block (or the
// default), the runner-up and what it trades, and a warning for every policy that lost pods.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/metrics/decide_spec.h"
#include "sim/metrics/run_result.h"

namespace slicelab {

struct PolicyChoice {
  std::optional<size_t> chosen, runner_up;       // indexes into the runs; none when none qualifies
  std::vector<std::vector<std::string>> broken;  // per run: the constraints it breaks
  std::string basis;                             // "Decided by max completed, ..."
  std::string text;                              // one or two sentences
  std::vector<std::string> warnings;             // "best-fit-ts4 lost 288 of 600 pods (...)"

  // summary.json's "decision" block (docs/results-format.md).
  nlohmann::ordered_json json(std::span<const RunResult> runs) const;
};

// Ranks `runs` lexicographically by the objective among those meeting every constraint (ties:
// the scenario's policy order). With no qualifying run, the text names the binding constraint.
PolicyChoice choose_policy(const DecideSpec& spec, std::span<const RunResult> runs);

// "best-fit-ts4 lost 288 of 600 pods (288 failed: 288 neighbours; ...)"; empty when it lost none.
std::string lost_pods_warning(const std::string& policy, const RunSummary& s);

// A figure of row `m` for a sentence: "4.5h", "$7.52", "600", "93.5%".
std::string metric_phrase_value(const RunMetric& m, std::optional<double> v);

}  // namespace slicelab
