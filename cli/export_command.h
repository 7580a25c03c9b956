// `slicelab export dra`: the ResourceSlices (and NVIDIA's DeviceClasses) that a scenario's
// cluster would publish under NVIDIA's DRA driver, so that a user starts DRA from their own
// cluster description (docs/dra.md#export).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace slicelab {

class ExportCommand {
 public:
  // Registers `export dra` on `app`.
  explicit ExportCommand(CLI::App& app);
  bool chosen() const { return cmd_->parsed(); }
  int run() const;

 private:
  CLI::App* cmd_;
  CLI::App* dra_;
  std::string scenario_;
  std::string out_;
  bool force_ = false;
  bool no_mig_ = false;
  bool consumable_ = false;
};

}  // namespace slicelab
