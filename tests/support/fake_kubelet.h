// A stand-in kubelet for device plugin tests: serves Registration on <dir>/kubelet.sock, records
// each RegisterRequest and, as the kubelet does, connects back to the plugin's endpoint.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backends/device_plugin/api/deviceplugin_v1beta1.grpc.pb.h"

namespace slicelab::testing {

// A call's answer: the response when status.ok().
template <class Response>
struct RpcResult {
  grpc::Status status;
  Response response;
  bool ok() const { return status.ok(); }
};

// The kubelet's side of one plugin's socket. With `watch`, a ListAndWatch stream is opened at
// once and read on a thread (as the kubelet keeps one open per plugin).
class FakePluginClient {
 public:
  explicit FakePluginClient(std::filesystem::path socket, bool watch = true);
  ~FakePluginClient();
  FakePluginClient(const FakePluginClient&) = delete;
  FakePluginClient& operator=(const FakePluginClient&) = delete;

  const std::filesystem::path& socket() const { return socket_; }
  RpcResult<v1beta1::DevicePluginOptions> options();
  // The next ListAndWatch message not yet taken; nullopt when none came within `timeout` (or
  // the stream ended).
  std::optional<std::vector<v1beta1::Device>> next_device_list(std::chrono::milliseconds timeout);
  // The stream's final status once it ended; nullopt while it is still open after `timeout`.
  std::optional<grpc::Status> wait_for_stream_end(std::chrono::milliseconds timeout);
  RpcResult<v1beta1::PreferredAllocationResponse> preferred(
      const v1beta1::PreferredAllocationRequest& request);
  // One container: `size` IDs from `available`, including `must_include`.
  RpcResult<v1beta1::PreferredAllocationResponse> preferred(
      const std::vector<std::string>& available, const std::vector<std::string>& must_include,
      int size);
  RpcResult<v1beta1::AllocateResponse> allocate(const v1beta1::AllocateRequest& request);
  // One container request per inner list.
  RpcResult<v1beta1::AllocateResponse> allocate(
      const std::vector<std::vector<std::string>>& containers);
  RpcResult<v1beta1::PreStartContainerResponse> pre_start(const std::vector<std::string>& ids);
  // Sends `payload` as the serialized request of `method` ("/v1beta1.DevicePlugin/Allocate"),
  // valid protobuf or not; returns the status and drops the reply.
  grpc::Status call_raw(const std::string& method, const std::string& payload);

 private:
  void read_stream();
  std::unique_ptr<grpc::ClientContext> context_for_call() const;

  std::filesystem::path socket_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1beta1::DevicePlugin::Stub> stub_;

  grpc::ClientContext stream_context_;
  std::thread reader_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::vector<v1beta1::Device>> lists_;
  std::optional<grpc::Status> stream_end_;
};

class FakeKubelet {
 public:
  // As the kubelet does when it starts, removes every other socket file in `dir` first.
  explicit FakeKubelet(std::filesystem::path dir);
  ~FakeKubelet();
  FakeKubelet(const FakeKubelet&) = delete;
  FakeKubelet& operator=(const FakeKubelet&) = delete;

  std::filesystem::path socket_path() const { return dir_ / "kubelet.sock"; }
  // Stops serving, drops the plugin clients and removes kubelet.sock. Idempotent.
  void stop();
  // Refuse (true) or accept the next registrations; a refused one is not recorded.
  void set_refuse(bool refuse);

  std::vector<v1beta1::RegisterRequest> registrations() const;
  // Registrations refused so far (set_refuse).
  std::size_t refusals() const;
  // Waits until at least `count` registrations were accepted; false after `timeout`.
  bool wait_for_registrations(std::size_t count, std::chrono::milliseconds timeout) const;
  // The client of the endpoint `resource` registered last (replaced on each registration, as
  // the kubelet replaces a plugin's endpoint); null when it never registered.
  std::shared_ptr<FakePluginClient> client(const std::string& resource) const;

 private:
  class Service;

  std::filesystem::path dir_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::vector<v1beta1::RegisterRequest> registrations_;
  std::map<std::string, std::shared_ptr<FakePluginClient>> clients_;
  bool refuse_ = false;
  std::size_t refusals_ = 0;
};

}  // namespace slicelab::testing
