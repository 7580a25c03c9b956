// `slicelab explain SCENARIO --policy NAME --pod POD`: why one pod went where it went in a run of
// one policy (docs/explain.md): each filter's verdict per node, each scorer's scores for the top
// candidates, the tie-break and the device picker's GPUs, per scheduling attempt.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "cli/output_format.h"

namespace slicelab {

class ExplainCommand {
 public:
  explicit ExplainCommand(CLI::App& app);
  bool chosen() const { return cmd_->parsed(); }
  int run() const;

 private:
  CLI::App* cmd_;
  std::string scenario_, policy_, pod_;
  std::optional<int64_t> seed_;
  size_t top_ = 5, nodes_ = 20;
  OutputFormat format_;
};

}  // namespace slicelab
