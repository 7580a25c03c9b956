// claims.json: every ResourceClaim a DRA run allocated, with its status.allocation written in
// the API's own field names (docs/results-format.md#claimsjson).
#pragma once

#include <nlohmann/json.hpp>

#include <span>

#include "sim/metrics/run_result.h"

namespace slicelab {

// True when some run allocated claims (a policy with sharing mode dra).
bool has_dra_claims(std::span<const RunResult> runs);

// {"policies": [{"policy": NAME, "seed": N, "claims": [{pod, namespace, name, node, allocated_s,
// status: {allocation: {devices: {results, config}, nodeSelector}}}]}]}
nlohmann::ordered_json dra_claims_json(std::span<const RunResult> runs);

// One status.allocation as the API server serves it.
nlohmann::ordered_json allocation_json(const DraAllocationResult& a);

}  // namespace slicelab
