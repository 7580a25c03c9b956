// The device plugin API's calls without their transport: a request's size limits and the
// kubelet's own guarantees checked (request_validation), then the resource asked under one lock
// and its answer written into the response. plugin_server serves these over gRPC; the
// device_plugin_request fuzz target calls them with the bytes it is given.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "backends/device_plugin/api/deviceplugin_v1beta1.pb.h"
#include "backends/device_plugin/resource_plugin.h"

namespace slicelab::device_plugin {

enum class RequestCode {
  kOk,
  kInvalidArgument,  // the request breaks a limit or what the kubelet guarantees; or the
                     // resource refused it (AllocationError)
  kInternal,         // the resource failed otherwise (any other exception): never a crash
};

struct RequestStatus {
  RequestCode code = RequestCode::kOk;
  std::string message;
  bool ok() const { return code == RequestCode::kOk; }
};

class PluginRequests {
 public:
  // `plugin` must outlive this. Every call may come on any thread: the resource is asked under
  // one lock (ResourcePlugin promises no thread safety), a request's checks and its allocation
  // under the same hold, so that the devices checked are the devices allocated.
  explicit PluginRequests(ResourcePlugin& plugin) : plugin_(plugin) {}

  static v1beta1::DevicePluginOptions options_of(const ResourcePlugin& plugin);
  v1beta1::DevicePluginOptions options() const { return options_of(plugin_); }

  // The resource's devices now, with their health (ListAndWatch).
  RequestStatus devices(std::vector<AdvertisedDevice>& out);
  RequestStatus preferred(const v1beta1::PreferredAllocationRequest& request,
                          v1beta1::PreferredAllocationResponse& response);
  RequestStatus allocate(const v1beta1::AllocateRequest& request,
                         v1beta1::AllocateResponse& response);
  RequestStatus pre_start(const v1beta1::PreStartContainerRequest& request);

 private:
  ResourcePlugin& plugin_;
  std::mutex mu_;
};

}  // namespace slicelab::device_plugin
