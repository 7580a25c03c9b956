// The recommendation of a compare: which policy to run by the scenario's `decide:` block (or the
// default), the runner-up and what it trades, and a warning for every policy that lost pods.
// Over several seeds a key of the objective decides only where the per-seed paired difference is
// beyond noise; policies within noise on it are tied and the next key decides.
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
  size_t seeds = 1;                              // replications the choice rests on
  // The policies nothing separated from the chosen one before a key decided (the chosen one
  // included; empty when the first key decided alone), the keys they tie on, and the key that
  // decided (none: no key separated the leaders, and the best means chose).
  std::vector<size_t> indistinguishable;
  std::vector<std::string> tied_on;
  std::optional<std::string> decided_by;
  // When no key separated the leaders: about how many seeds would separate the chosen one from
  // the closest other on the first key where their means differ, at the observed variance.
  std::optional<size_t> seeds_to_separate;

  // summary.json's "decision" block (docs/results-format.md).
  nlohmann::ordered_json json(std::span<const RunResult> runs) const;
};

// Each policy's summaries over the seeds, in one seed order for every policy.
using SeedSummaries = std::vector<const RunSummary*>;

// Ranks the policies by the objective among those meeting every constraint in every seed (ties:
// the scenario's policy order). `means` are the per-policy means (or the single runs), `per_seed`
// each policy's runs seed by seed. With no qualifying run, the text names the binding constraint.
PolicyChoice choose_policy(const DecideSpec& spec, std::span<const RunResult> means,
                           std::span<const SeedSummaries> per_seed);
// One run per policy: one seed, noise unknown, every difference decides.
PolicyChoice choose_policy(const DecideSpec& spec, std::span<const RunResult> runs);

// "best-fit-ts4 lost 288 of 600 pods (288 failed: 288 neighbours; ...)"; empty when it lost none.
std::string lost_pods_warning(const std::string& policy, const RunSummary& s);

// A figure of row `m` for a sentence: "4.5h", "$7.52", "600", "93.5%".
std::string metric_phrase_value(const RunMetric& m, std::optional<double> v);

}  // namespace slicelab
