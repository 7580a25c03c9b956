// One run of a scenario's policy with one pod's placement explained (`slicelab explain`,
// docs/explain.md): the run decides exactly as `slicelab run` does, and the explanation records
// each of the pod's scheduling attempts.
#pragma once

#include <string>
#include <string_view>

#include "sim/placement/placement_explanation.h"
#include "sim/scenario/scenario.h"

namespace slicelab {

// Runs policy `policy` of `scenario` explaining pod `pod`. Throws InputError for a policy or a
// pod the scenario does not have (naming the closest pod name, as "did you mean").
PlacementExplanation explain_run(const Scenario& scenario, std::string_view policy,
                                 std::string_view pod, const ExplainOptions& options = {});

}  // namespace slicelab
