#include "backends/device_plugin/plugin_requests.h"

#include <fmt/format.h>

#include <exception>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "backends/device_plugin/request_validation.h"

namespace slicelab::device_plugin {
namespace {

using Ids = google::protobuf::RepeatedPtrField<std::string>;

RequestStatus invalid(std::string message) {
  return {RequestCode::kInvalidArgument, std::move(message)};
}

// Counts IDs against the request-wide limit and checks each one's length, before any is copied.
class IdBudget {
 public:
  std::optional<RequestStatus> take(const Ids& ids) {
    if (ids.size() > kMaxDeviceIdsPerRequest - used_)
      return invalid(
          fmt::format("more than {} device IDs in one request", kMaxDeviceIdsPerRequest));
    used_ += ids.size();
    for (const std::string& id : ids)
      if (id.size() > kMaxDeviceIdBytes)
        return invalid(fmt::format("a device ID longer than {} bytes", kMaxDeviceIdBytes));
    return std::nullopt;
  }

 private:
  int used_ = 0;
};

std::optional<RequestStatus> check_container_count(int count) {
  if (count <= kMaxContainerRequests) return std::nullopt;
  return invalid(fmt::format("more than {} container requests", kMaxContainerRequests));
}

// The resource's refusals become kInvalidArgument with its message; anything else it throws is
// kInternal: a call never takes the process down.
template <class Call>
RequestStatus guarded(Call&& call) {
  try {
    return call();
  } catch (const AllocationError& e) {
    return invalid(e.what());
  } catch (const std::exception& e) {
    return {RequestCode::kInternal, e.what()};
  } catch (...) {
    return {RequestCode::kInternal, "the device plugin failed"};
  }
}

std::vector<std::string> to_vector(const Ids& ids) {
  return {ids.begin(), ids.end()};
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

}  // namespace

v1beta1::DevicePluginOptions PluginRequests::options_of(const ResourcePlugin& plugin) {
  v1beta1::DevicePluginOptions options;
  options.set_get_preferred_allocation_available(true);
  options.set_pre_start_required(plugin.wants_pre_start());
  return options;
}

RequestStatus PluginRequests::devices(std::vector<AdvertisedDevice>& out) {
  return guarded([&] {
    const std::lock_guard lock(mu_);
    out = plugin_.devices();
    return RequestStatus{};
  });
}

RequestStatus PluginRequests::preferred(const v1beta1::PreferredAllocationRequest& request,
                                        v1beta1::PreferredAllocationResponse& response) {
  if (auto s = check_container_count(request.container_requests_size())) return *s;
  IdBudget budget;
  for (const auto& container : request.container_requests()) {
    if (auto s = budget.take(container.available_deviceids())) return *s;
    if (auto s = budget.take(container.must_include_deviceids())) return *s;
  }
  return guarded([&] {
    const std::lock_guard lock(mu_);
    const std::vector<AdvertisedDevice> devices = plugin_.devices();
    std::vector<PreferredRequest> wanted;
    wanted.reserve(static_cast<std::size_t>(request.container_requests_size()));
    for (int c = 0; c < request.container_requests_size(); ++c) {
      const auto& container = request.container_requests(c);
      PreferredRequest r{to_vector(container.available_deviceids()),
                         to_vector(container.must_include_deviceids()),
                         container.allocation_size()};
      if (auto problem = preferred_request_problem(r, devices)) {
        if (request.container_requests_size() > 1)
          *problem += fmt::format(" (container request {})", c + 1);
        return invalid(std::move(*problem));
      }
      wanted.push_back(std::move(r));
    }
    for (const PreferredRequest& r : wanted) {
      const std::vector<std::string> chosen = preferred_answer(plugin_.preferred(r), r);
      auto& out = *response.add_container_responses();
      for (const std::string& id : chosen) out.add_deviceids(id);
    }
    return RequestStatus{};
  });
}

RequestStatus PluginRequests::allocate(const v1beta1::AllocateRequest& request,
                                       v1beta1::AllocateResponse& response) {
  if (auto s = check_container_count(request.container_requests_size())) return *s;
  IdBudget budget;
  for (const auto& container : request.container_requests())
    if (auto s = budget.take(container.devices_ids())) return *s;
  std::vector<std::vector<std::string>> containers;
  containers.reserve(static_cast<std::size_t>(request.container_requests_size()));
  for (const auto& container : request.container_requests())
    containers.push_back(to_vector(container.devices_ids()));
  return guarded([&] {
    const std::lock_guard lock(mu_);
    if (auto problem = allocate_request_problem(containers, plugin_.devices()))
      return invalid(std::move(*problem));
    for (const std::vector<std::string>& ids : containers)
      fill_container_response(plugin_.allocate(ids), *response.add_container_responses());
    return RequestStatus{};
  });
}

RequestStatus PluginRequests::pre_start(const v1beta1::PreStartContainerRequest& request) {
  IdBudget budget;
  if (auto s = budget.take(request.devices_ids())) return *s;
  return guarded([&] {
    const std::lock_guard lock(mu_);
    if (!plugin_.wants_pre_start()) return RequestStatus{};
    // The devices the kubelet allocated to the container: known, each once (their health may
    // have changed since).
    std::unordered_set<std::string> known;
    for (const AdvertisedDevice& d : plugin_.devices()) known.insert(d.id);
    std::unordered_set<std::string_view> seen;
    for (int i = 0; i < request.devices_ids_size(); ++i) {
      const std::string& id = request.devices_ids(i);
      if (!seen.insert(id).second || !known.contains(id))
        return invalid(fmt::format(
            "PreStartContainer: device ID {} of the request is unknown or named twice", i + 1));
    }
    plugin_.pre_start(to_vector(request.devices_ids()));
    return RequestStatus{};
  });
}

}  // namespace slicelab::device_plugin
