// What a plan.json must hold for `slicelab report` to read it back: the capacity planner's
// format (reports/plan_files.h writes it), checked value by value before any figure is read.
#pragma once

#include "reports/json_reader.h"

namespace slicelab {

// Checks `f` as a plan.json; throws InputError "FILE:LINE:COL: PATH: expected X, found Y" at
// the first value that is not as the format says: the top level an object of `kind` "plan",
// `format` (when present) "slicelab.plan/1" or kPlanFormat, `seeds` whole numbers;
// `targets[]` objects of a string `metric` and `op` and a number `value`; `policies[]` objects
// with a string `policy`, a boolean `feasible`, whole numbers (or null) `gpus` and `nodes`,
// numbers (or null) in `metrics`, estimates ({n, mean, ci95 [low, high] or null, min, max} or
// null) in `estimates`, `seed_sizes[]` of a whole `seed` and `group_nodes` (or null), a
// `seed_size_range` {min <= max} or null, `curve[]` points with a boolean `meets`, and a `fit`
// object of numbers or null. Keys it does not know are left alone.
void check_plan_json(const JsonFile& f);

}  // namespace slicelab
