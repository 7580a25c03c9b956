#include "backends/device_plugin/plugin_server.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/resource_quota.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <vector>

namespace slicelab::device_plugin {

namespace {

// How often a ListAndWatch stream looks at whether it must end (server stopping, client gone)
// while no health change wakes it: bounds how long stop() waits for open streams.
constexpr std::chrono::milliseconds kStreamPoll{50};
// After this, Shutdown cancels calls still running (a plugin stuck in allocate()).
constexpr std::chrono::milliseconds kShutdownGrace{500};
// One thread per open stream or call in progress; a bound keeps a flood of connections from
// starting thousands of threads (the kubelet holds one stream and makes one call at a time).
constexpr int kMaxServerThreads = 64;

bool same_devices(const std::vector<AdvertisedDevice>& a, const std::vector<AdvertisedDevice>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].id != b[i].id || a[i].healthy != b[i].healthy || a[i].numa_node != b[i].numa_node) {
      return false;
    }
  }
  return true;
}

v1beta1::ListAndWatchResponse device_list(const std::vector<AdvertisedDevice>& devices) {
  v1beta1::ListAndWatchResponse response;
  for (const AdvertisedDevice& d : devices) {
    v1beta1::Device& out = *response.add_devices();
    out.set_id(d.id);
    out.set_health(std::string(d.healthy ? kHealthy : kUnhealthy));
    if (d.numa_node >= 0) out.mutable_topology()->add_nodes()->set_id(d.numa_node);
  }
  return response;
}

void fill_container_response(const ContainerAllocation& a,
                             v1beta1::ContainerAllocateResponse& out) {
  for (const auto& [name, value] : a.envs) (*out.mutable_envs())[name] = value;
  for (const Mount& m : a.mounts) {
    v1beta1::Mount& mount = *out.add_mounts();
    mount.set_container_path(m.container_path);
    mount.set_host_path(m.host_path);
    mount.set_read_only(m.read_only);
  }
  for (const DeviceNode& d : a.devices) {
    v1beta1::DeviceSpec& device = *out.add_devices();
    device.set_container_path(d.container_path);
    device.set_host_path(d.host_path);
    device.set_permissions(d.permissions);
  }
  for (const auto& [name, value] : a.annotations) (*out.mutable_annotations())[name] = value;
  for (const std::string& name : a.cdi_devices) out.add_cdi_devices()->set_name(name);
}

// Counts IDs against the request-wide limit and checks each one's length.
class IdBudget {
 public:
  grpc::Status take(const google::protobuf::RepeatedPtrField<std::string>& ids) {
    if (ids.size() > kMaxDeviceIdsPerRequest - used_) {
      return {
          grpc::StatusCode::INVALID_ARGUMENT,
          "more than " + std::to_string(kMaxDeviceIdsPerRequest) + " device IDs in one request"};
    }
    used_ += ids.size();
    for (const std::string& id : ids) {
      if (id.size() > kMaxDeviceIdBytes) {
        return {grpc::StatusCode::INVALID_ARGUMENT,
                "a device ID longer than " + std::to_string(kMaxDeviceIdBytes) + " bytes"};
      }
    }
    return grpc::Status::OK;
  }

 private:
  int used_ = 0;
};

grpc::Status check_container_count(int count) {
  if (count <= kMaxContainerRequests) return grpc::Status::OK;
  return {grpc::StatusCode::INVALID_ARGUMENT,
          "more than " + std::to_string(kMaxContainerRequests) + " container requests"};
}

// The plugin's refusals become INVALID_ARGUMENT with its message; anything else it throws is
// INTERNAL: a call never takes the process down.
grpc::Status guarded(const std::function<void()>& call) {
  try {
    call();
    return grpc::Status::OK;
  } catch (const AllocationError& e) {
    return {grpc::StatusCode::INVALID_ARGUMENT, e.what()};
  } catch (const std::exception& e) {
    return {grpc::StatusCode::INTERNAL, e.what()};
  } catch (...) {
    return {grpc::StatusCode::INTERNAL, "the device plugin failed"};
  }
}

v1beta1::DevicePluginOptions plugin_options(const ResourcePlugin& plugin) {
  v1beta1::DevicePluginOptions options;
  options.set_get_preferred_allocation_available(true);
  options.set_pre_start_required(plugin.wants_pre_start());
  return options;
}

std::vector<std::string> to_vector(const google::protobuf::RepeatedPtrField<std::string>& ids) {
  return {ids.begin(), ids.end()};
}

}  // namespace

std::string plugin_socket_name(std::string_view resource_name) {
  std::string name = "slicelab-";
  for (const char c : resource_name) name += c == '/' ? '-' : c;
  return name + ".sock";
}

class DevicePluginServer::Service final : public v1beta1::DevicePlugin::Service {
 public:
  Service(ResourcePlugin& plugin, const DeviceHealth& health, const std::atomic<bool>& stopping)
      : plugin_(plugin), health_(health), stopping_(stopping) {}

  grpc::Status GetDevicePluginOptions(grpc::ServerContext* /*context*/,
                                      const v1beta1::Empty* /*request*/,
                                      v1beta1::DevicePluginOptions* response) override {
    return guarded([&] { *response = plugin_options(plugin_); });
  }

  grpc::Status ListAndWatch(grpc::ServerContext* context, const v1beta1::Empty* /*request*/,
                            grpc::ServerWriter<v1beta1::ListAndWatchResponse>* writer) override {
    // The version is read before the list: a change between the two is seen on the next round.
    uint64_t seen = health_.version();
    std::vector<AdvertisedDevice> sent;
    grpc::Status listed = guarded([&] { sent = devices(); });
    if (!listed.ok()) return listed;
    if (!writer->Write(device_list(sent))) return grpc::Status::OK;
    while (!stopping_ && !context->IsCancelled() && !health_.stopped()) {
      const uint64_t now = health_.wait_for_change(seen, kStreamPoll);
      if (now == seen) continue;
      seen = now;
      std::vector<AdvertisedDevice> next;
      grpc::Status status = guarded([&] { next = devices(); });
      if (!status.ok()) return status;
      // A change to another resource's GPU leaves this list as it was: the kubelet hears
      // only of real changes.
      if (same_devices(next, sent)) continue;
      if (!writer->Write(device_list(next))) break;
      sent = std::move(next);
    }
    return grpc::Status::OK;
  }

  grpc::Status GetPreferredAllocation(grpc::ServerContext* /*context*/,
                                      const v1beta1::PreferredAllocationRequest* request,
                                      v1beta1::PreferredAllocationResponse* response) override {
    if (auto s = check_container_count(request->container_requests_size()); !s.ok()) return s;
    IdBudget budget;
    for (const auto& container : request->container_requests()) {
      if (auto s = budget.take(container.available_deviceids()); !s.ok()) return s;
      if (auto s = budget.take(container.must_include_deviceids()); !s.ok()) return s;
      if (container.allocation_size() < 0 ||
          container.allocation_size() > container.available_deviceids_size()) {
        return {grpc::StatusCode::INVALID_ARGUMENT,
                "allocation_size " + std::to_string(container.allocation_size()) +
                    " is not within the " + std::to_string(container.available_deviceids_size()) +
                    " available devices"};
      }
    }
    return guarded([&] {
      for (const auto& container : request->container_requests()) {
        PreferredRequest wanted{to_vector(container.available_deviceids()),
                                to_vector(container.must_include_deviceids()),
                                container.allocation_size()};
        std::vector<std::string> chosen;
        {
          const std::lock_guard lock(plugin_mu_);
          chosen = plugin_.preferred(wanted);
        }
        auto& out = *response->add_container_responses();
        for (std::string& id : chosen) out.add_deviceids(std::move(id));
      }
    });
  }

  grpc::Status Allocate(grpc::ServerContext* /*context*/, const v1beta1::AllocateRequest* request,
                        v1beta1::AllocateResponse* response) override {
    if (auto s = check_container_count(request->container_requests_size()); !s.ok()) return s;
    IdBudget budget;
    for (const auto& container : request->container_requests()) {
      if (auto s = budget.take(container.devices_ids()); !s.ok()) return s;
    }
    return guarded([&] {
      for (const auto& container : request->container_requests()) {
        const std::vector<std::string> ids = to_vector(container.devices_ids());
        ContainerAllocation allocation;
        {
          const std::lock_guard lock(plugin_mu_);
          allocation = plugin_.allocate(ids);
        }
        fill_container_response(allocation, *response->add_container_responses());
      }
    });
  }

  grpc::Status PreStartContainer(grpc::ServerContext* /*context*/,
                                 const v1beta1::PreStartContainerRequest* request,
                                 v1beta1::PreStartContainerResponse* /*response*/) override {
    IdBudget budget;
    if (auto s = budget.take(request->devices_ids()); !s.ok()) return s;
    return guarded([&] {
      const std::lock_guard lock(plugin_mu_);
      if (plugin_.wants_pre_start()) plugin_.pre_start(to_vector(request->devices_ids()));
    });
  }

 private:
  std::vector<AdvertisedDevice> devices() {
    const std::lock_guard lock(plugin_mu_);
    return plugin_.devices();
  }

  ResourcePlugin& plugin_;
  const DeviceHealth& health_;
  // ResourcePlugin promises no thread safety; gRPC calls come on several threads.
  std::mutex plugin_mu_;
  const std::atomic<bool>& stopping_;
};

DevicePluginServer::DevicePluginServer(ResourcePlugin& plugin, const DeviceHealth& health,
                                       std::filesystem::path plugin_dir)
    : plugin_(plugin),
      health_(health),
      plugin_dir_(std::move(plugin_dir)),
      resource_name_(plugin.resource_name()),
      endpoint_(plugin_socket_name(resource_name_)) {}

DevicePluginServer::~DevicePluginServer() {
  stop();
}

v1beta1::DevicePluginOptions DevicePluginServer::options() const {
  return plugin_options(plugin_);
}

v1beta1::RegisterRequest DevicePluginServer::register_request() const {
  v1beta1::RegisterRequest request;
  request.set_version(std::string(kDevicePluginApiVersion));
  request.set_endpoint(endpoint_);
  request.set_resource_name(resource_name_);
  *request.mutable_options() = options();
  return request;
}

void DevicePluginServer::start() {
  const std::lock_guard lock(lifecycle_mu_);
  if (server_) shut_down();
  const std::filesystem::path path = socket_path();
  if (path.string().size() >= sizeof(sockaddr_un::sun_path)) {
    throw std::runtime_error("the socket path " + path.string() + " is too long for a Unix socket");
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      throw std::runtime_error(path.string() +
                               " exists and is not a socket; not replacing it with the plugin's");
    }
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      throw std::runtime_error("cannot remove the stale socket " + path.string() + ": " +
                               std::strerror(errno));
    }
  }
  stopping_ = false;
  auto service = std::make_unique<Service>(plugin_, health_, stopping_);
  grpc::ServerBuilder builder;
  builder.AddListeningPort("unix:" + path.string(), grpc::InsecureServerCredentials());
  builder.SetMaxReceiveMessageSize(kMaxReceiveMessageBytes);
  grpc::ResourceQuota quota("slicelab-device-plugin");
  quota.SetMaxThreads(kMaxServerThreads);
  builder.SetResourceQuota(quota);
  builder.RegisterService(service.get());
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) throw std::runtime_error("cannot serve the device plugin on " + path.string());
  if (::lstat(path.c_str(), &st) != 0) {
    server->Shutdown();
    throw std::runtime_error("the socket " + path.string() + " vanished as it was bound");
  }
  socket_dev_ = st.st_dev;
  socket_ino_ = st.st_ino;
  service_ = std::move(service);
  server_ = std::move(server);
  serving_ = true;
}

void DevicePluginServer::request_stop() noexcept {
  stopping_ = true;
}

void DevicePluginServer::stop() {
  const std::lock_guard lock(lifecycle_mu_);
  if (server_) shut_down();
}

void DevicePluginServer::shut_down() {
  stopping_ = true;
  server_->Shutdown(std::chrono::system_clock::now() + kShutdownGrace);
  server_->Wait();
  server_.reset();
  service_.reset();
  serving_ = false;
  // The kubelet (or a new instance of ours) may already have put another file there.
  struct stat st {};
  if (::lstat(socket_path().c_str(), &st) == 0 && S_ISSOCK(st.st_mode) &&
      st.st_dev == socket_dev_ && st.st_ino == socket_ino_) {
    ::unlink(socket_path().c_str());
  }
}

bool DevicePluginServer::serving() const {
  return serving_;
}

bool DevicePluginServer::socket_is_ours() const {
  const std::lock_guard lock(lifecycle_mu_);
  struct stat st {};
  return serving_ && ::lstat(socket_path().c_str(), &st) == 0 && st.st_dev == socket_dev_ &&
         st.st_ino == socket_ino_;
}

}  // namespace slicelab::device_plugin
