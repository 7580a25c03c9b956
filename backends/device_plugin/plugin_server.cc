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
#include <stdexcept>
#include <vector>

#include "backends/device_plugin/plugin_requests.h"

namespace slicelab::device_plugin {

namespace {

// How often a ListAndWatch stream looks at whether it must end (server stopping, client gone)
// while no health change wakes it: bounds how long stop() waits for open streams.
constexpr std::chrono::milliseconds kStreamPoll{50};
// After this, Shutdown cancels calls still running (a plugin stuck in allocate()).
constexpr std::chrono::milliseconds kShutdownGrace{500};

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

grpc::Status to_grpc(const RequestStatus& status) {
  switch (status.code) {
    case RequestCode::kOk:
      return grpc::Status::OK;
    case RequestCode::kInvalidArgument:
      return {grpc::StatusCode::INVALID_ARGUMENT, status.message};
    case RequestCode::kInternal:
      break;
  }
  return {grpc::StatusCode::INTERNAL, status.message};
}

// Holds one of the kMaxListAndWatchStreams places for as long as its stream is open.
class StreamPlace {
 public:
  explicit StreamPlace(std::atomic<int>& open)
      : open_(open), held_(++open_ <= kMaxListAndWatchStreams) {}
  ~StreamPlace() { --open_; }
  StreamPlace(const StreamPlace&) = delete;
  StreamPlace& operator=(const StreamPlace&) = delete;
  bool held() const { return held_; }

 private:
  std::atomic<int>& open_;
  bool held_;
};

}  // namespace

std::string plugin_socket_name(std::string_view resource_name) {
  std::string name = "slicelab-";
  for (const char c : resource_name) name += c == '/' ? '-' : c;
  return name + ".sock";
}

class DevicePluginServer::Service final : public v1beta1::DevicePlugin::Service {
 public:
  Service(ResourcePlugin& plugin, const DeviceHealth& health, const std::atomic<bool>& stopping)
      : requests_(plugin), health_(health), stopping_(stopping) {}

  grpc::Status GetDevicePluginOptions(grpc::ServerContext* /*context*/,
                                      const v1beta1::Empty* /*request*/,
                                      v1beta1::DevicePluginOptions* response) override {
    *response = requests_.options();
    return grpc::Status::OK;
  }

  grpc::Status ListAndWatch(grpc::ServerContext* context, const v1beta1::Empty* /*request*/,
                            grpc::ServerWriter<v1beta1::ListAndWatchResponse>* writer) override {
    const StreamPlace place(open_streams_);
    if (!place.held())
      return {grpc::StatusCode::RESOURCE_EXHAUSTED,
              "ListAndWatch: " + std::to_string(kMaxListAndWatchStreams) +
                  " streams are open already (the kubelet holds one); close one first"};
    // The version is read before the list: a change between the two is seen on the next round.
    uint64_t seen = health_.version();
    std::vector<AdvertisedDevice> sent;
    if (const RequestStatus listed = requests_.devices(sent); !listed.ok()) return to_grpc(listed);
    if (!writer->Write(device_list(sent))) return grpc::Status::OK;
    while (!stopping_ && !context->IsCancelled() && !health_.stopped()) {
      const uint64_t now = health_.wait_for_change(seen, kStreamPoll);
      if (now == seen) continue;
      seen = now;
      std::vector<AdvertisedDevice> next;
      if (const RequestStatus status = requests_.devices(next); !status.ok())
        return to_grpc(status);
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
    return to_grpc(requests_.preferred(*request, *response));
  }

  grpc::Status Allocate(grpc::ServerContext* /*context*/, const v1beta1::AllocateRequest* request,
                        v1beta1::AllocateResponse* response) override {
    return to_grpc(requests_.allocate(*request, *response));
  }

  grpc::Status PreStartContainer(grpc::ServerContext* /*context*/,
                                 const v1beta1::PreStartContainerRequest* request,
                                 v1beta1::PreStartContainerResponse* /*response*/) override {
    return to_grpc(requests_.pre_start(*request));
  }

 private:
  PluginRequests requests_;
  const DeviceHealth& health_;
  const std::atomic<bool>& stopping_;
  std::atomic<int> open_streams_{0};
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
  return PluginRequests::options_of(plugin_);
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
  // The folder as it is now, no link followed (HostPathError is a runtime_error); every file
  // operation below goes through it, so that a folder swapped for a link is never written into.
  HostFolder folder = HostFolder::open(plugin_dir_);
  if (const std::optional<struct stat> st = folder.entry(endpoint_)) {
    if (!S_ISSOCK(st->st_mode)) {
      throw std::runtime_error(path.string() +
                               " exists and is not a socket; not replacing it with the plugin's");
    }
    if (!folder.remove_if_same(endpoint_, *st) && folder.entry(endpoint_)) {
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
  // gRPC bound by path: the socket must be in the folder opened above, and the path must still
  // lead there.
  const std::optional<struct stat> bound = folder.entry(endpoint_);
  const struct stat was = folder.status();
  struct stat now {};
  if (!bound || !S_ISSOCK(bound->st_mode) || ::stat(plugin_dir_.c_str(), &now) != 0 ||
      now.st_dev != was.st_dev || now.st_ino != was.st_ino) {
    server->Shutdown();
    throw std::runtime_error("the socket " + path.string() + " is not in the folder opened as " +
                             plugin_dir_.string() +
                             " (the folder was moved or replaced as it was bound)");
  }
  socket_ = *bound;
  folder_ = std::move(folder);
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
  if (folder_) {
    try {
      folder_->remove_if_same(endpoint_, socket_);
    } catch (const HostPathError&) {
      // Nothing of ours to remove.
    }
  }
  folder_.reset();
}

bool DevicePluginServer::serving() const {
  return serving_;
}

bool DevicePluginServer::socket_is_ours() const {
  const std::lock_guard lock(lifecycle_mu_);
  if (!serving_ || !folder_) return false;
  struct stat st {};
  // Through the path too: a folder removed and made again (its old descriptor still names the
  // removed one) no longer holds our socket.
  if (::lstat(socket_path().c_str(), &st) != 0) return false;
  return st.st_dev == socket_.st_dev && st.st_ino == socket_.st_ino;
}

}  // namespace slicelab::device_plugin
