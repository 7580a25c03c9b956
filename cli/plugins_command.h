// `slicelab plugins`: every placement preset, filter, scorer, device picker, tie-break rule and
// sharing mode a scenario may name, with its one-line description, from the registries.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace slicelab {

class PluginsCommand {
 public:
  // Registers `plugins` on `app`.
  explicit PluginsCommand(CLI::App& app);
  bool chosen() const { return cmd_->parsed(); }
  int run() const;

 private:
  CLI::App* cmd_;
};

// The text `slicelab plugins` prints.
std::string plugins_listing();

}  // namespace slicelab
