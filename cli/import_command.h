// `slicelab import`: converts an openb or mapped CSV trace into a native trace YAML file, or a
// Kubernetes export into a scenario folder, and says what it read, so that the result can be
// checked, edited and versioned before it is run.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/output_format.h"

namespace slicelab {

class ImportCommand {
 public:
  // Registers `import openb`, `import csv`, `import kubernetes` and `import recording` on `app`.
  explicit ImportCommand(CLI::App& app);
  bool chosen() const { return cmd_->parsed(); }
  // Reads, writes the trace and prints the summary; bad input throws InputError.
  int run() const;

 private:
  int run_kubernetes() const;
  int run_recording() const;

  CLI::App* cmd_;
  CLI::App* openb_;
  CLI::App* csv_;
  CLI::App* kubernetes_;
  CLI::App* recording_;
  std::string recording_dir_;
  std::string unended_duration_;  // import recording --duration (empty: their time so far)
  bool history_ = false;
  std::vector<std::string> kube_nodes_;
  std::vector<std::string> kube_pods_;
  std::string snapshot_time_;
  std::string running_duration_ = "1h";
  std::string name_ = "kubernetes";
  bool force_ = false;
  std::string pods_;
  std::string nodes_;
  std::string duration_ = "1h";
  std::string file_;
  std::string map_;
  std::string time_unit_ = "s";
  std::string memory_unit_ = "MiB";
  std::string cpu_unit_ = "milli";
  std::string separator_ = ",";
  std::string time_origin_;
  std::string out_;
  OutputFormat format_;  // json: the summary as one slicelab.import/1 document
};

}  // namespace slicelab
