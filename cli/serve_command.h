// `slicelab serve extender`: runs the scheduler extender (backends/k8s) for kube-scheduler over
// a scenario's sharing mode and placement policy (docs/extender.md); `serve device-plugin` too.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "cli/device_plugin_command.h"

namespace slicelab {
namespace k8s {
class ExtenderState;
class ShadowDecisionLog;
}  // namespace k8s

class ServeCommand {
 public:
  // Registers `serve extender` and `serve device-plugin` on `app`.
  explicit ServeCommand(CLI::App& app);
  bool chosen() const { return extender_->parsed() || device_plugin_.chosen(); }
  int run() const;

 private:
  CLI::App* cmd_;
  CLI::App* extender_;
  DevicePluginCommand device_plugin_;
  int run_extender() const;
  // --record: the recording folder's header when absent, then the decision log, started and
  // reported to by `state`.
  std::unique_ptr<k8s::ShadowDecisionLog> start_decision_log(k8s::ExtenderState& state,
                                                             const std::string& policy,
                                                             const std::string& server) const;

  std::string scenario_, policy_, listen_ = "127.0.0.1:8888", url_prefix_;
  std::optional<uint64_t> seed_;
  std::string kubeconfig_, api_server_, token_file_, nodes_file_, pods_file_;
  std::string filter_returns_ = "chosen";
  std::string record_dir_;  // --record: shadow mode's decisions, a recording folder
  bool in_cluster_ = false, shadow_ = false, explain_log_ = false;
  // Who may call the extender, and its limits (docs/extender-deploy.md).
  std::string tls_cert_file_, tls_key_file_, client_ca_file_, auth_token_file_;
  std::string probe_listen_, metrics_token_file_, memory_budget_ = "512Mi";
  bool insecure_listen_ = false;
  size_t max_connections_ = 256, max_connections_per_client_ = 64;
};

}  // namespace slicelab
