// The capacity plan's outputs: plan.json (the contract shared with the report), plan.md,
// capacity.csv and the terminal table. Byte-stable for equal plans.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "planning/capacity_planner.h"

namespace slicelab {

// plan.json's format and version: 2 sizes over seeds (a policy's size meets the targets in every
// seed; its figures are means with a 95% interval). Files without "format" are version 1.
inline constexpr const char* kPlanFormat = "slicelab.plan/2";

// A value of plan metric `metric` for people: durations for "_s" metrics ("3.1h"), else four
// significant digits; "—" for none.
std::string plan_value_text(const std::string& metric, std::optional<double> v);
// Why `p` has no size: the targets it still missed at the largest size tried, with the values.
// "" when it has one.
std::string infeasible_reason(const CapacityPlan& plan, const PolicyPlan& p);

nlohmann::ordered_json plan_json(const CapacityPlan& plan);
std::string plan_markdown(const CapacityPlan& plan);
// policy,gpus,nodes,value,meets,value_min,value_max,seeds_meeting (value: the first target's
// metric, mean over seeds)
std::string capacity_csv(const CapacityPlan& plan);
std::string plan_table(const CapacityPlan& plan);  // for the terminal

// dir/{plan.json,plan.md,capacity.csv}, replacing dir only once all are written.
void write_plan(const std::string& dir, const CapacityPlan& plan, bool force = false);

}  // namespace slicelab
