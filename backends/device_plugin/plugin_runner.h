// Runs a node's device plugins for the kubelet: one gRPC server per resource, registered with the
// kubelet, served again on a fresh socket and registered again whenever the kubelet restarts.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backends/device_plugin/device_health.h"
#include "backends/device_plugin/resource_plugin.h"

namespace slicelab::device_plugin {

class DevicePluginServer;
class KubeletRegistration;
class KubeletSocketWatch;

struct PluginRunnerOptions {
  std::filesystem::path plugin_dir = "/var/lib/kubelet/device-plugins";
  std::string kubelet_socket = "kubelet.sock";  // its file name in plugin_dir
  // How long one Register call waits for the kubelet (NVIDIA's plugin: 5 s).
  std::chrono::milliseconds register_timeout{5000};
  // A failed start or registration is tried again after `retry_initial`, doubling up to
  // `retry_max` (NVIDIA's plugin retries every 30 s); a new kubelet socket retries at once.
  std::chrono::milliseconds retry_initial{1000};
  std::chrono::milliseconds retry_max{30000};
  // Lines for people ("registered nvidia.com/gpu with the kubelet"); called from the runner's
  // thread. May be empty.
  std::function<void(const std::string&)> log;
};

// Usage (`slicelab serve device-plugin`):
//   DeviceHealth health;
//   auto resources = make_node_resources(config, gpus, health, pods);
//   PluginRunner runner(resources, health, {.plugin_dir = config.plugin_dir, .log = print});
//   runner.start();   // throws std::runtime_error if the folder cannot be watched or served
//   ... wait for SIGTERM (a health monitor marks GPUs in `health` meanwhile) ...
//   runner.stop();    // < 1 s; then health.stop()
// The kubelet restarting (its socket recreated, ours deleted) is handled inside: every server
// is started again on a fresh socket and registered again, with back-off while that fails.
class PluginRunner {
 public:
  // `plugins` and `health` must outlive the runner.
  PluginRunner(const std::vector<std::unique_ptr<ResourcePlugin>>& plugins,
               const DeviceHealth& health, PluginRunnerOptions options);
  PluginRunner(const std::vector<ResourcePlugin*>& plugins, const DeviceHealth& health,
               PluginRunnerOptions options);
  ~PluginRunner();
  PluginRunner(const PluginRunner&) = delete;
  PluginRunner& operator=(const PluginRunner&) = delete;

  // Serves every resource and registers it in the background (a kubelet not there yet is
  // waited for). Throws std::runtime_error when the folder cannot be watched or a socket cannot
  // be served (then nothing is left running). Throws std::logic_error when already started.
  void start();
  // Stops watching, ends every stream and call in progress, removes our sockets. Idempotent;
  // start() may be called again afterwards.
  void stop();
  bool running() const;
  // Successful registrations since construction, over all resources (a kubelet restart adds
  // one per resource).
  uint64_t registrations() const { return registrations_; }

 private:
  struct Served;
  void loop();
  void attempt(Served& served);
  void restart(Served& served, const std::string& why);
  void say(const std::string& line) const;

  std::vector<ResourcePlugin*> plugins_;
  const DeviceHealth& health_;
  PluginRunnerOptions options_;

  mutable std::mutex mu_;  // start/stop
  std::vector<std::unique_ptr<Served>> served_;
  std::unique_ptr<KubeletSocketWatch> watch_;
  std::unique_ptr<KubeletRegistration> registration_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  std::atomic<uint64_t> registrations_{0};
};

}  // namespace slicelab::device_plugin
