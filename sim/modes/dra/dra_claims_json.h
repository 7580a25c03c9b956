// A DRA run's part of claims.json: every ResourceClaim it allocated, with its status.allocation
// written in the API's own field names (docs/results-format.md#claimsjson).
#pragma once

#include <nlohmann/json.hpp>

#include <span>
#include <string>

#include "sim/modes/dra/dra_claim_record.h"

namespace slicelab {

// [{pod, namespace, name, node, allocated_s, status: {allocation: {devices: {results, config},
// nodeSelector}}}], the "claims" of one policy in claims.json.
nlohmann::ordered_json dra_claims_json(std::span<const DraClaimRecord> claims);
// The same array as dra_claims_json(claims).dump() prints it, one claim's tree at a time: a
// run of 100,000 claims does not hold all of them as JSON objects at once.
std::string dra_claims_json_text(std::span<const DraClaimRecord> claims);

// One status.allocation as the API server serves it.
nlohmann::ordered_json allocation_json(const DraAllocationResult& a);

}  // namespace slicelab
