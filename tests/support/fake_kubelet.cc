#include "tests/support/fake_kubelet.h"

#include <grpcpp/generic/generic_stub.h>
#include <sys/stat.h>

#include <future>
#include <system_error>
#include <utility>

namespace slicelab::testing {

namespace {

constexpr std::chrono::seconds kCallDeadline{5};

std::vector<v1beta1::Device> devices_of(const v1beta1::ListAndWatchResponse& response) {
  return {response.devices().begin(), response.devices().end()};
}

// Its own connection (gRPC shares one per target by default): what one client does to its
// connection, a hostile payload say, does not reach the others.
std::shared_ptr<grpc::Channel> private_channel(const std::filesystem::path& socket) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel("unix:" + socket.string(), grpc::InsecureChannelCredentials(),
                                   args);
}

}  // namespace

FakePluginClient::FakePluginClient(std::filesystem::path socket, bool watch)
    : socket_(std::move(socket)),
      channel_(private_channel(socket_)),
      stub_(v1beta1::DevicePlugin::NewStub(channel_)) {
  if (watch) {
    reader_ = std::thread([this] { read_stream(); });
  } else {
    stream_end_ = grpc::Status(grpc::StatusCode::CANCELLED, "not watching");
  }
}

FakePluginClient::~FakePluginClient() {
  stream_context_.TryCancel();
  if (reader_.joinable()) reader_.join();
}

void FakePluginClient::read_stream() {
  const auto reader = stub_->ListAndWatch(&stream_context_, v1beta1::Empty());
  v1beta1::ListAndWatchResponse response;
  while (reader->Read(&response)) {
    const std::lock_guard lock(mu_);
    lists_.push_back(devices_of(response));
    cv_.notify_all();
  }
  const grpc::Status status = reader->Finish();
  const std::lock_guard lock(mu_);
  stream_end_ = status;
  cv_.notify_all();
}

std::optional<std::vector<v1beta1::Device>> FakePluginClient::next_device_list(
    std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return !lists_.empty() || stream_end_.has_value(); });
  if (lists_.empty()) return std::nullopt;
  std::vector<v1beta1::Device> list = std::move(lists_.front());
  lists_.pop_front();
  return list;
}

std::optional<grpc::Status> FakePluginClient::wait_for_stream_end(
    std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return stream_end_.has_value(); });
  return stream_end_;
}

std::unique_ptr<grpc::ClientContext> FakePluginClient::context_for_call() const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + kCallDeadline);
  return context;
}

RpcResult<v1beta1::DevicePluginOptions> FakePluginClient::options() {
  RpcResult<v1beta1::DevicePluginOptions> result;
  const auto context = context_for_call();
  result.status = stub_->GetDevicePluginOptions(context.get(), v1beta1::Empty(), &result.response);
  return result;
}

RpcResult<v1beta1::PreferredAllocationResponse> FakePluginClient::preferred(
    const v1beta1::PreferredAllocationRequest& request) {
  RpcResult<v1beta1::PreferredAllocationResponse> result;
  const auto context = context_for_call();
  result.status = stub_->GetPreferredAllocation(context.get(), request, &result.response);
  return result;
}

RpcResult<v1beta1::PreferredAllocationResponse> FakePluginClient::preferred(
    const std::vector<std::string>& available, const std::vector<std::string>& must_include,
    int size) {
  v1beta1::PreferredAllocationRequest request;
  auto& container = *request.add_container_requests();
  for (const auto& id : available) container.add_available_deviceids(id);
  for (const auto& id : must_include) container.add_must_include_deviceids(id);
  container.set_allocation_size(size);
  return preferred(request);
}

RpcResult<v1beta1::AllocateResponse> FakePluginClient::allocate(
    const v1beta1::AllocateRequest& request) {
  RpcResult<v1beta1::AllocateResponse> result;
  const auto context = context_for_call();
  result.status = stub_->Allocate(context.get(), request, &result.response);
  return result;
}

RpcResult<v1beta1::AllocateResponse> FakePluginClient::allocate(
    const std::vector<std::vector<std::string>>& containers) {
  v1beta1::AllocateRequest request;
  for (const auto& ids : containers) {
    auto& container = *request.add_container_requests();
    for (const auto& id : ids) container.add_devices_ids(id);
  }
  return allocate(request);
}

RpcResult<v1beta1::PreStartContainerResponse> FakePluginClient::pre_start(
    const std::vector<std::string>& ids) {
  v1beta1::PreStartContainerRequest request;
  for (const auto& id : ids) request.add_devices_ids(id);
  RpcResult<v1beta1::PreStartContainerResponse> result;
  const auto context = context_for_call();
  result.status = stub_->PreStartContainer(context.get(), request, &result.response);
  return result;
}

grpc::Status FakePluginClient::call_raw(const std::string& method, const std::string& payload) {
  grpc::GenericStub generic(channel_);
  grpc::Slice slice(payload);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer reply;
  const auto context = context_for_call();
  std::promise<grpc::Status> done;
  generic.UnaryCall(context.get(), method, grpc::StubOptions(), &request, &reply,
                    [&done](grpc::Status status) { done.set_value(std::move(status)); });
  return done.get_future().get();
}

class FakeKubelet::Service final : public v1beta1::Registration::Service {
 public:
  explicit Service(FakeKubelet& kubelet) : kubelet_(kubelet) {}

  grpc::Status Register(grpc::ServerContext* /*context*/, const v1beta1::RegisterRequest* request,
                        v1beta1::Empty* /*response*/) override {
    if (request->version() != "v1beta1") {
      return {grpc::StatusCode::INVALID_ARGUMENT,
              "unsupported device plugin API version " + request->version()};
    }
    {
      const std::lock_guard lock(kubelet_.mu_);
      if (kubelet_.refuse_) {
        ++kubelet_.refusals_;
        return {grpc::StatusCode::FAILED_PRECONDITION, "refused by the test"};
      }
    }
    auto client = std::make_shared<FakePluginClient>(kubelet_.dir_ / request->endpoint());
    std::shared_ptr<FakePluginClient> replaced;  // destroyed outside the lock
    {
      const std::lock_guard lock(kubelet_.mu_);
      kubelet_.registrations_.push_back(*request);
      replaced = std::exchange(kubelet_.clients_[request->resource_name()], client);
    }
    kubelet_.cv_.notify_all();
    return grpc::Status::OK;
  }

 private:
  FakeKubelet& kubelet_;
};

FakeKubelet::FakeKubelet(std::filesystem::path dir) : dir_(std::move(dir)) {
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    std::error_code error;
    if (entry.is_socket(error)) std::filesystem::remove(entry.path(), error);
  }
  service_ = std::make_unique<Service>(*this);
  grpc::ServerBuilder builder;
  builder.AddListeningPort("unix:" + socket_path().string(), grpc::InsecureServerCredentials());
  builder.RegisterService(service_.get());
  server_ = builder.BuildAndStart();
  if (!server_) throw std::runtime_error("the fake kubelet cannot serve " + socket_path().string());
}

FakeKubelet::~FakeKubelet() {
  stop();
}

void FakeKubelet::stop() {
  if (!server_) return;
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
  server_->Wait();
  server_.reset();
  std::map<std::string, std::shared_ptr<FakePluginClient>> clients;
  {
    const std::lock_guard lock(mu_);
    clients.swap(clients_);
  }
  clients.clear();
  std::error_code error;
  std::filesystem::remove(socket_path(), error);
}

void FakeKubelet::set_refuse(bool refuse) {
  const std::lock_guard lock(mu_);
  refuse_ = refuse;
}

std::vector<v1beta1::RegisterRequest> FakeKubelet::registrations() const {
  const std::lock_guard lock(mu_);
  return registrations_;
}

std::size_t FakeKubelet::refusals() const {
  const std::lock_guard lock(mu_);
  return refusals_;
}

bool FakeKubelet::wait_for_registrations(std::size_t count,
                                         std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return registrations_.size() >= count; });
}

std::shared_ptr<FakePluginClient> FakeKubelet::client(const std::string& resource) const {
  const std::lock_guard lock(mu_);
  const auto it = clients_.find(resource);
  return it == clients_.end() ? nullptr : it->second;
}

}  // namespace slicelab::testing
