// `slicelab plan`: sizes the cluster per policy to meet a scenario's targets under workload
// growth, and writes plan.json, plan.md and capacity.csv.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/output_format.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace slicelab {

class PlanCommand {
 public:
  explicit PlanCommand(CLI::App& app);
  bool chosen() const { return cmd_->parsed(); }
  int run() const;  // bad input throws InputError

 private:
  CLI::App* cmd_;
  std::string scenario_;
  std::optional<int64_t> seed_;
  std::string seeds_;  // --seeds as written (sim/scenario/replications.h)
  std::optional<double> growth_;
  std::vector<std::string> targets_;
  std::optional<int> min_nodes_, max_nodes_, probes_;
  std::string out_;
  int jobs_ = 1;
  bool quiet_ = false;
  bool force_ = false;
  OutputFormat format_;
};

}  // namespace slicelab
