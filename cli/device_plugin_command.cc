#include "cli/device_plugin_command.h"

#include <fmt/format.h>
#include <pthread.h>

#include <csignal>
#include <cstdlib>
#include <memory>

#include "backends/device_plugin/device_health.h"
#include "backends/device_plugin/node_resources.h"
#include "backends/device_plugin/nvml_health_monitor.h"
#include "backends/device_plugin/plugin_config.h"
#include "backends/device_plugin/plugin_runner.h"
#include "backends/device_plugin/pod_source_api.h"
#include "backends/k8s/api_client.h"
#include "backends/k8s/api_config.h"
#include "backends/local/gpu_detection.h"
#include "cli/input_paths.h"
#include "cli/usage_error.h"

namespace slicelab {
namespace {

void say(const std::string& line) {
  fmt::print(stderr, "slicelab device plugin: {}\n", line);
}

}  // namespace

DevicePluginCommand::DevicePluginCommand(CLI::App& serve) {
  cmd_ = serve.add_subcommand(
      "device-plugin",
      "Kubelet device plugin: whole GPUs, time-slice/MPS replicas, interposer shares, MIG");
  cmd_->add_option("--config", config_,
                   "Plugin config: NVIDIA's device plugin format plus a slicelab: section "
                   "(default: whole GPUs)")
      ->check(existing_input_file());
  cmd_->add_option("--plugin-dir", plugin_dir_,
                   "The kubelet's device plugin folder (default /var/lib/kubelet/device-plugins)");
  cmd_->add_option("--node-name", node_name_, "This node's name (default: $NODE_NAME)");
  cmd_->add_option("--nvml-library", nvml_library_, "NVML library to open");
  cmd_->add_option("--kubeconfig", kubeconfig_, "Kubeconfig (interposer shares read pods)");
  cmd_->add_flag("--in-cluster", in_cluster_, "Use the pod's service account");
  cmd_->add_option("--api-server", api_server_, "API server URL (with --token-file)");
  cmd_->add_option("--token-file", token_file_, "Bearer token file for --api-server");
}

int DevicePluginCommand::run() const {
  using namespace device_plugin;
  NodePluginConfig config;
  if (!config_.empty()) config = read_node_plugin_config(config_);
  for (const std::string& w : config.warnings) say("warning: " + w);
  if (!plugin_dir_.empty()) config.plugin_dir = plugin_dir_;
  if (!nvml_library_.empty()) config.nvml_library = nvml_library_;
  if (!node_name_.empty()) config.node_name = node_name_;
  if (config.node_name.empty())
    if (const char* n = std::getenv("NODE_NAME")) config.node_name = n;

  // SIGINT and SIGTERM end the plugin: blocked in every thread (set before any starts) and
  // awaited here.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  const GpuDetection detection = detect_gpus(config.nvml_library);
  if (!detection.ok()) throw std::runtime_error(detection.problem);

  // Interposer shares take their caps from the pod, so only they need the API server.
  std::unique_ptr<k8s::ApiClient> api;
  std::unique_ptr<PodSource> pods;
  if (config.mode == ShareMode::kInterposer) {
    if (config.node_name.empty())
      throw UsageError("interposer shares need the node's name: --node-name or $NODE_NAME");
    const bool given = !kubeconfig_.empty() || in_cluster_ || !api_server_.empty();
    if (given && (!kubeconfig_.empty()) + in_cluster_ + (!api_server_.empty()) != 1)
      throw UsageError("give one of --kubeconfig, --in-cluster and --api-server");
    k8s::ApiConfig api_config;
    if (!kubeconfig_.empty()) {
      api_config = k8s::load_kubeconfig(kubeconfig_);
    } else if (!api_server_.empty()) {
      api_config.server = api_server_;
      api_config.token_file = token_file_;
      api_config.source = "--api-server " + api_server_;
    } else {
      api_config = k8s::in_cluster_config();  // the DaemonSet's service account by default
    }
    api = std::make_unique<k8s::ApiClient>(std::move(api_config));
    pods = make_api_pod_source(*api, config.node_name);
  }

  DeviceHealth health;
  const auto resources = make_node_resources(config, detection.gpus, health, pods.get());
  NvmlHealthOptions health_options = nvml_health_options_from_environment();
  health_options.library = config.nvml_library;
  health_options.log = say;
  NvmlHealthMonitor monitor(health, detection.gpus, health_options);
  if (!monitor.start()) say("no health checks: " + monitor.problem());

  PluginRunnerOptions runner_options;
  runner_options.plugin_dir = config.plugin_dir;
  runner_options.log = say;
  PluginRunner runner(resources, health, runner_options);
  runner.start();
  for (const auto& r : resources)
    say(fmt::format("serving {} ({} devices) in {}", r->resource_name(), r->devices().size(),
                    config.plugin_dir));
  int signal = 0;
  sigwait(&stop_signals, &signal);
  say(fmt::format("stopping ({})", signal == SIGINT ? "SIGINT" : "SIGTERM"));
  runner.stop();
  monitor.stop();
  health.stop();
  return 0;
}

}  // namespace slicelab
