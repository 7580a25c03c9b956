// `slicelab import`: converts an openb or mapped CSV trace into a native trace YAML file and
// says what it read, so that a trace can be checked, edited and versioned before it is run.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace slicelab {

class ImportCommand {
 public:
  // Registers `import openb` and `import csv` on `app`.
  explicit ImportCommand(CLI::App& app);
  bool chosen() const { return cmd_->parsed(); }
  // Reads, writes the trace and prints the summary; bad input throws InputError.
  int run() const;

 private:
  CLI::App* cmd_;
  CLI::App* openb_;
  CLI::App* csv_;
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
};

}  // namespace slicelab
