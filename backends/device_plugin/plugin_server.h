// The kubelet device plugin API v1beta1 for one resource: a gRPC DevicePlugin server on a Unix
// socket in the kubelet's device-plugins folder, answering from a ResourcePlugin.
#pragma once

#include <sys/types.h>
#include <atomic>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "backends/device_plugin/api/deviceplugin_v1beta1.grpc.pb.h"
#include "backends/device_plugin/device_health.h"
#include "backends/device_plugin/resource_plugin.h"

namespace grpc {
class Server;
}

namespace slicelab::device_plugin {

inline constexpr std::string_view kDevicePluginApiVersion = "v1beta1";
inline constexpr std::string_view kHealthy = "Healthy";
inline constexpr std::string_view kUnhealthy = "Unhealthy";

// What a request may hold before the plugin sees it; more is INVALID_ARGUMENT. A kubelet asks
// for one pod's containers at a time, with IDs of 63 characters at most (the API's own limit),
// so these leave ample room while bounding what a hostile client can make the plugin do.
inline constexpr int kMaxContainerRequests = 1024;
inline constexpr int kMaxDeviceIdsPerRequest = 4096;  // over all containers of one request
inline constexpr std::size_t kMaxDeviceIdBytes = 256;
inline constexpr int kMaxReceiveMessageBytes = 4 * 1024 * 1024;

// The socket file name for a resource, as NVIDIA's plugin names its own ("nvidia-gpu.sock"):
// "nvidia.com/gpu" -> "slicelab-nvidia.com-gpu.sock".
std::string plugin_socket_name(std::string_view resource_name);

class DevicePluginServer {
 public:
  // `plugin` and `health` must outlive the server; ListAndWatch waits on `health`'s version.
  DevicePluginServer(ResourcePlugin& plugin, const DeviceHealth& health,
                     std::filesystem::path plugin_dir);
  ~DevicePluginServer();
  DevicePluginServer(const DevicePluginServer&) = delete;
  DevicePluginServer& operator=(const DevicePluginServer&) = delete;

  // Serves on <plugin_dir>/<plugin_socket_name>. A stale socket file there is replaced; any
  // other kind of file is left alone and start() throws std::runtime_error (as it does when
  // the socket cannot be bound). Starting a started server restarts it on a fresh socket.
  void start();
  // Ends every ListAndWatch stream (within ~0.1 s), waits for calls in progress and removes the
  // socket file if it is still ours. Idempotent.
  void stop();
  // Makes streams end now without waiting (lets a caller stop many servers in parallel).
  void request_stop() noexcept;

  bool serving() const;
  // False when the socket file was removed or replaced since start() (the kubelet deletes
  // plugin sockets when it restarts).
  bool socket_is_ours() const;
  std::string resource_name() const { return resource_name_; }
  // The socket file name, relative to the plugin folder (RegisterRequest.endpoint).
  const std::string& endpoint() const { return endpoint_; }
  std::filesystem::path socket_path() const { return plugin_dir_ / endpoint_; }
  v1beta1::DevicePluginOptions options() const;
  v1beta1::RegisterRequest register_request() const;

 private:
  class Service;
  void shut_down();  // with lifecycle_mu_ held and a server running

  ResourcePlugin& plugin_;
  const DeviceHealth& health_;
  std::filesystem::path plugin_dir_;
  std::string resource_name_;
  std::string endpoint_;

  mutable std::mutex lifecycle_mu_;  // start/stop
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  std::atomic<bool> serving_{false};
  std::atomic<bool> stopping_{false};  // read by every open ListAndWatch stream
  dev_t socket_dev_ = 0;
  ino_t socket_ino_ = 0;
};

}  // namespace slicelab::device_plugin
