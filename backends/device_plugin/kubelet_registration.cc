#include "backends/device_plugin/kubelet_registration.h"

#include <grpcpp/grpcpp.h>

#include "backends/device_plugin/api/deviceplugin_v1beta1.grpc.pb.h"

namespace slicelab::device_plugin {

KubeletRegistration::KubeletRegistration(std::filesystem::path kubelet_socket)
    : kubelet_socket_(std::move(kubelet_socket)) {}

void KubeletRegistration::register_plugin(const v1beta1::RegisterRequest& request,
                                          std::chrono::milliseconds timeout) {
  const auto channel =
      grpc::CreateChannel("unix:" + kubelet_socket_.string(), grpc::InsecureChannelCredentials());
  const auto stub = v1beta1::Registration::NewStub(channel);
  grpc::ClientContext context;
  // As NVIDIA's plugin dials with WithBlock: a kubelet whose socket is there but not yet
  // answering gets until the deadline.
  context.set_wait_for_ready(true);
  context.set_deadline(std::chrono::system_clock::now() + timeout);
  {
    const std::lock_guard lock(mu_);
    if (cancelled_) throw RegistrationError("registration cancelled");
    in_flight_ = &context;
  }
  v1beta1::Empty reply;
  const grpc::Status status = stub->Register(&context, request, &reply);
  {
    const std::lock_guard lock(mu_);
    in_flight_ = nullptr;
  }
  if (!status.ok()) {
    throw RegistrationError("registering " + request.resource_name() + " with the kubelet at " +
                            kubelet_socket_.string() + " failed: " + status.error_message() +
                            " (gRPC code " + std::to_string(status.error_code()) + ")");
  }
}

void KubeletRegistration::cancel() {
  const std::lock_guard lock(mu_);
  cancelled_ = true;
  if (in_flight_ != nullptr) in_flight_->TryCancel();
}

}  // namespace slicelab::device_plugin
