// The client side of the kubelet's Registration service: tells the kubelet (on its kubelet.sock)
// which resource a plugin serves and on which socket.
#pragma once

#include <chrono>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include "backends/device_plugin/api/deviceplugin_v1beta1.pb.h"

namespace grpc {
class ClientContext;
}

namespace slicelab::device_plugin {

// The kubelet could not be reached or refused the registration; the message says which.
class RegistrationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class KubeletRegistration {
 public:
  explicit KubeletRegistration(std::filesystem::path kubelet_socket);
  // Waits up to `timeout` for the kubelet to answer; throws RegistrationError otherwise.
  void register_plugin(const v1beta1::RegisterRequest& request, std::chrono::milliseconds timeout);
  // From any thread: ends a register_plugin() in progress, and makes later ones fail at once.
  void cancel();

 private:
  std::filesystem::path kubelet_socket_;
  std::mutex mu_;
  grpc::ClientContext* in_flight_ = nullptr;
  bool cancelled_ = false;
};

}  // namespace slicelab::device_plugin
