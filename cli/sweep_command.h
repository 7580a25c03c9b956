// `slicelab sweep` (a grid of runs, or one shard of it, on all cores) and `slicelab merge`
// (the shards' outputs joined into the unsharded result set).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/output_format.h"

namespace slicelab {

class SweepCommand {
 public:
  explicit SweepCommand(CLI::App& app);  // registers `sweep` and `merge`
  bool chosen() const { return sweep_->parsed() || merge_->parsed(); }
  int run() const;  // bad input throws InputError

 private:
  int run_sweep_cmd() const;
  int run_merge_cmd() const;

  CLI::App* sweep_;
  CLI::App* merge_;
  std::string file_;
  std::string shard_;
  std::string seeds_;  // --seeds as written: replaces the grid's seeds axis
  std::string out_;
  int jobs_ = 1;
  bool quiet_ = false;
  bool force_ = false;
  std::vector<std::string> shards_;
  std::string merge_out_;
  OutputFormat format_;  // --format json: the sweep.json written, instead of the line
};

}  // namespace slicelab
