// `slicelab record`: records what a live cluster does (its pods' lives and its nodes) from the
// API server's LIST and WATCH into a recording folder (docs/record.md, the format in
// docs/recording-format.md), until --duration has passed or SIGINT/SIGTERM.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace slicelab {

class RecordCommand {
 public:
  // Registers `record` on `app`.
  explicit RecordCommand(CLI::App& app);
  bool chosen() const { return cmd_->parsed(); }
  int run() const;

 private:
  CLI::App* cmd_;
  std::string out_;
  std::string kubeconfig_, api_server_, token_file_;
  bool in_cluster_ = false;
  std::string namespace_, selector_;
  std::string duration_, rotate_size_ = "64Mi", rotate_every_ = "1h";
  bool quiet_ = false;
};

}  // namespace slicelab
