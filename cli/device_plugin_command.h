// `slicelab serve device-plugin`: the kubelet device plugin of this node (backends/device_plugin)
// for whole GPUs, time-slice and MPS replicas, interposer shares and MIG; docs/device-plugin.md.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace slicelab {

class DevicePluginCommand {
 public:
  // Registers `device-plugin` under the `serve` subcommand.
  explicit DevicePluginCommand(CLI::App& serve);
  bool chosen() const { return cmd_->parsed(); }
  int run() const;

 private:
  CLI::App* cmd_;
  std::string config_, plugin_dir_, node_name_, nvml_library_;
  std::string kubeconfig_, api_server_, token_file_;
  bool in_cluster_ = false;
};

}  // namespace slicelab
