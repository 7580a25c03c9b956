// `slicelab interposer stats <region>`: what one container's interposed processes are using,
// read from their shared accounting region (caps, usage, launches, throttled time per device).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace slicelab {

class InterposerCommand {
 public:
  // Registers `interposer stats <region>` on `app`.
  explicit InterposerCommand(CLI::App& app);
  bool chosen() const { return cmd_->parsed(); }
  int run() const;

 private:
  CLI::App* cmd_;
  CLI::App* stats_;
  std::string region_;
};

// The report for a region file; throws std::runtime_error when it is not a region.
std::string interposer_stats_report(const std::string& region_path);

}  // namespace slicelab
