// What a summary.json must hold for slicelab to read it back (`report`, `diff`): its format
// (docs/results-format.md), checked value by value before any figure is read, so that a file
// of another shape is refused at the value that breaks it rather than misread or half-read.
#pragma once

#include "reports/json_reader.h"

namespace slicelab {

// The formats this slicelab writes and reads.
inline constexpr const char* kSummaryFormat = "slicelab.summary/1";
inline constexpr const char* kSeedsFormat = "slicelab.seeds/1";

// Checks `f` as a summary.json; throws InputError "FILE:LINE:COL: PATH: expected X, found Y" at
// the first value that is not as the format says:
// - the top level an object; `format`, when given (older files have none), one of the two above;
//   `seed` and `seeds[]` whole numbers; `workload`, `cluster` and `decision` of their shapes;
// - `policies` a list of objects, each with a string `name` no other policy has;
// - every figure of the run-metrics table (sim/metrics/run_metrics.h) at its key a number or
//   null, and the counts (pods, events) whole numbers of at least 0; `not_placed_reasons` an
//   object of counts; `per_model` a list of objects with a string `model` and numbers;
//   `per_class` a list of objects with a string `class` and figures at the policy's own keys.
// Keys it does not know are left alone (newer files add keys; the report lists them).
void check_summary_json(const JsonFile& f);

}  // namespace slicelab
