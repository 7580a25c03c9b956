// The capacity plan's outputs: plan.json (the contract shared with the report), plan.md,
// capacity.csv and the terminal table. Byte-stable for equal plans.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "sim/planning/capacity_planner.h"

namespace slicelab {

nlohmann::ordered_json plan_json(const CapacityPlan& plan);
std::string plan_markdown(const CapacityPlan& plan);
std::string capacity_csv(const CapacityPlan& plan);  // policy,gpus,nodes,value,meets
std::string plan_table(const CapacityPlan& plan);    // for the terminal

// dir/{plan.json,plan.md,capacity.csv}, replacing dir only once all are written.
void write_plan(const std::string& dir, const CapacityPlan& plan, bool force = false);

}  // namespace slicelab
