#include "sim/scenario/explain_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "sim/scenario/run_policies.h"
#include "workloads/edit_distance.h"
#include "workloads/input_error.h"

namespace slicelab {
namespace {

const PolicySpec& explain_find_policy(const Scenario& sc, std::string_view name) {
  std::vector<std::string> names;
  for (const PolicySpec& p : sc.policies) {
    if (p.name == name) return p;
    names.push_back(p.name);
  }
  throw InputError(fmt::format("{}: no policy named '{}' (the scenario has: {})", sc.name, name,
                               fmt::join(names, ", ")));
}

uint32_t explain_find_pod(const Scenario& sc, std::string_view name) {
  std::string_view best;
  size_t best_d = std::numeric_limits<size_t>::max();
  // Names are short: one distance per pod costs little next to the run itself.
  const size_t limit = std::max<size_t>(2, name.size() / 3);
  for (size_t i = 0; i < sc.pods.size(); ++i) {
    const std::string_view p = sc.pods[i].name.view();
    if (p == name) return static_cast<uint32_t>(i);
    if (p.size() > name.size() + limit || name.size() > p.size() + limit) continue;
    if (const size_t d = edit_distance(name, p); d <= limit && d < best_d) best_d = d, best = p;
  }
  const std::string hint = best.empty() ? "" : fmt::format(" (did you mean '{}'?)", best);
  throw InputError(fmt::format("{}: no pod named '{}' among its {} pods{}", sc.name, name,
                               sc.pods.size(), hint));
}

std::string explain_outcome_text(const RunResult& r, uint32_t p) {
  const PodOutcome& o = r.pods[p];
  std::string text = to_string(o.status);
  if (o.start_s >= 0) text += fmt::format(", started at t={:g}s", o.start_s);
  if (o.reason != ReasonTable::kNone) text += ": " + r.reasons[o.reason];
  return text;
}

}  // namespace

PlacementExplanation explain_run(const Scenario& scenario, std::string_view policy,
                                 std::string_view pod, const ExplainOptions& options) {
  const PolicySpec& spec = explain_find_policy(scenario, policy);
  const uint32_t p = explain_find_pod(scenario, pod);
  PlacementExplainer explainer(p, options);
  const RunResult r = run_policy(scenario, spec, {}, nullptr, &explainer);
  PlacementExplanation out = std::move(explainer.result());
  out.outcome = explain_outcome_text(r, p);
  out.policy = spec.name;
  out.pod = std::string(pod);
  return out;
}

}  // namespace slicelab
