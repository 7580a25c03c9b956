// `slicelab serve extender`: runs the scheduler extender (backends/k8s) for kube-scheduler over
// a scenario's sharing mode and placement policy; docs/extender.md.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace slicelab {

class ServeCommand {
 public:
  explicit ServeCommand(CLI::App& app);  // registers `serve extender` on `app`
  bool chosen() const { return extender_->parsed(); }
  int run() const;

 private:
  CLI::App* cmd_;
  CLI::App* extender_;
  std::string scenario_, policy_, listen_ = "0.0.0.0:8888", url_prefix_;
  std::optional<uint64_t> seed_;
  std::string kubeconfig_, api_server_, token_file_, nodes_file_, pods_file_;
  std::string filter_returns_ = "chosen";
  bool in_cluster_ = false, shadow_ = false;
};

}  // namespace slicelab
