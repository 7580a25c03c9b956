// The kubelet device plugin API v1beta1 for one resource: a gRPC DevicePlugin server on a Unix
// socket in the kubelet's device-plugins folder, answering from a ResourcePlugin.
#pragma once

#include <sys/types.h>
#include <atomic>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "backends/device_plugin/api/deviceplugin_v1beta1.grpc.pb.h"
#include "backends/device_plugin/device_health.h"
#include "backends/device_plugin/host_files.h"
#include "backends/device_plugin/request_validation.h"
#include "backends/device_plugin/resource_plugin.h"

namespace grpc {
class Server;
}

namespace slicelab::device_plugin {

inline constexpr std::string_view kDevicePluginApiVersion = "v1beta1";
inline constexpr std::string_view kHealthy = "Healthy";
inline constexpr std::string_view kUnhealthy = "Unhealthy";

// A gRPC message over this is refused (RESOURCE_EXHAUSTED) before it is parsed.
inline constexpr int kMaxReceiveMessageBytes = 4 * 1024 * 1024;
// Open ListAndWatch streams per resource; one more is refused with RESOURCE_EXHAUSTED. The
// kubelet holds one (two for a moment when it registers the plugin again); each stream holds a
// server thread, and the bound keeps kMaxServerThreads - kMaxListAndWatchStreams threads free for
// Allocate and GetPreferredAllocation whatever a client opens.
inline constexpr int kMaxListAndWatchStreams = 16;
inline constexpr int kMaxServerThreads = 64;

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

  // Serves on <plugin_dir>/<plugin_socket_name>. The folder is opened without following a link
  // in its path (host_files.h; a link is refused), and every file operation goes through that
  // descriptor. A stale socket file there is replaced; any other kind of file is left alone and
  // start() throws std::runtime_error (as it does when the socket cannot be bound). Starting a
  // started server restarts it on a fresh socket.
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
  std::optional<HostFolder> folder_;   // plugin_dir_, opened at start()
  struct stat socket_ {};              // the socket file start() bound
};

}  // namespace slicelab::device_plugin
