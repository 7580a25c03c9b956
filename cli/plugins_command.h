// `slicelab plugins`: every placement preset, filter, scorer, device picker, tie-break rule and
// sharing mode a scenario may name, with its one-line description, from the registries.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "cli/output_format.h"

namespace slicelab {

class PluginsCommand {
 public:
  // Registers `plugins` on `app`.
  explicit PluginsCommand(CLI::App& app);
  bool chosen() const { return cmd_->parsed(); }
  int run() const;

 private:
  CLI::App* cmd_;
  OutputFormat format_;
};

// The text `slicelab plugins` prints.
std::string plugins_listing();
// What `slicelab plugins --format json` prints (slicelab.plugins/1).
nlohmann::ordered_json plugins_json();

}  // namespace slicelab
