// Which seeds a command runs a scenario with: the replications that give every figure its
// noise. One rule for compare, run, plan, sweep and diff (docs/scenario-format.md#seeds).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/scenario.h"

namespace slicelab {

// Replications of a scenario that names no `seeds:`: its `seed:` and the next ones. Ten keeps a
// compare of every shipped scenario within seconds and gives a t interval of +-2.26 standard
// errors.
constexpr size_t kDefaultReplications = 10;
// The most seeds one command runs (each is a whole run of every policy).
constexpr size_t kMaxReplications = 10'000;

// `--seeds` as written: a count ("10") or a list ("1,2,3").
struct SeedsOption {
  std::optional<size_t> count;
  std::vector<uint64_t> list;
};

// std::nullopt and `why` set when malformed (not a count in 1..kMaxReplications, nor a list of
// distinct seeds 0..INT64_MAX).
std::optional<SeedsOption> parse_seeds_option(std::string_view text, std::string& why);

// The seeds to run, in order: `--seed S` alone -> {S}; `--seeds` list -> it; `--seeds N` -> N
// seeds from the scenario's first seed; else the scenario's `seeds:`; else kDefaultReplications
// seeds from its `seed:`. `seed` and `seeds` together are the caller's usage error.
std::vector<uint64_t> replication_seeds(const Scenario& sc, std::optional<uint64_t> seed,
                                        const std::optional<SeedsOption>& seeds);

// "seeds 42-51" / "seeds 1, 5, 9" / "one seed (42)": for messages.
std::string seeds_text(const std::vector<uint64_t>& seeds);

}  // namespace slicelab
