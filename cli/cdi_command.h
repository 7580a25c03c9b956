// `slicelab cdi generate`: the CDI spec of this node's GPUs, shares and MIG devices, named as
// the device plugin names them, for containerd, CRI-O and podman; docs/device-plugin.md.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace slicelab {

class CdiCommand {
 public:
  explicit CdiCommand(CLI::App& app);  // registers `cdi generate` on `app`
  bool chosen() const { return generate_->parsed(); }
  int run() const;

 private:
  CLI::App* cmd_;
  CLI::App* generate_;
  std::string config_, format_, output_, nvml_library_, dev_root_ = "/dev";
  std::string version_ = "minimum";
};

}  // namespace slicelab
