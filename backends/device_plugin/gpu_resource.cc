#include "backends/device_plugin/gpu_resource.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "backends/device_plugin/preferred_allocation.h"
#include "backends/local/isolation.h"

namespace slicelab::device_plugin {
namespace {

// server.go: with volume-mounts, the toolkit reads the device list from these mounts' names.
constexpr const char* kVolumeMountsRoot = "/var/run/nvidia-container-devices";

bool includes(const NodePluginConfig& c, DeviceListStrategy s) {
  return std::find(c.list_strategies.begin(), c.list_strategies.end(), s) !=
         c.list_strategies.end();
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

// CDI's annotation key "<prefix><plugin>_<id>" (cdiapi.UpdateAnnotations): the name part
// after the prefix is at most 63 characters of [A-Za-z0-9._-], alphanumeric at both ends. A
// counter in place of NVIDIA's random UUID keeps answers reproducible; the resource's name
// keeps resources apart.
std::string annotation_name(uint64_t n, std::string_view resource) {
  std::string out = fmt::format("slicelab-device-plugin_{}-", n);
  for (char c : resource) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    out += ok ? c : '-';
  }
  constexpr size_t kMaxName = 63;
  if (out.size() > kMaxName) out.resize(kMaxName);
  while (!out.empty() && (out.back() == '.' || out.back() == '_' || out.back() == '-'))
    out.pop_back();
  return out;
}

}  // namespace

GpuResource::GpuResource(DeviceGroup group, const NodePluginConfig& config,
                         const DeviceHealth& health, std::unique_ptr<MpsShare> mps,
                         std::shared_ptr<const GpuTopology> topology, int node_gpus)
    : group_(std::move(group)),
      config_(config),
      health_(health),
      mps_(std::move(mps)),
      topology_(std::move(topology)),
      node_gpus_(node_gpus) {}

std::vector<AdvertisedDevice> GpuResource::devices() const {
  std::vector<AdvertisedDevice> out;
  out.reserve(group_.devices.size());
  for (const ResourceDevice& d : group_.devices) {
    // A replica or instance is as healthy as its GPU (and its instance).
    const bool healthy =
        health_.healthy(d.gpu_uuid) && (d.mig_uuid.empty() || health_.healthy(d.mig_uuid));
    out.push_back(AdvertisedDevice{d.id, healthy, -1});
  }
  return out;
}

std::vector<std::string> GpuResource::preferred(const PreferredRequest& request) const {
  if (group_.replicated) return preferred_replicas(group_.devices, request);
  if (group_.mig) return preferred_in_order(group_.devices, request);
  return preferred_on_topology(group_.devices, request, topology_, node_gpus_);
}

const ResourceDevice& GpuResource::device(const std::string& id) const {
  for (const ResourceDevice& d : group_.devices)
    if (d.id == id) return d;
  // rm.go ValidateRequest's message, as the plugin's Allocate wraps it.
  throw AllocationError(
      fmt::format("invalid allocation request for \"{}\": invalid request: unknown device: {}",
                  group_.resource, id));
}

std::vector<DeviceNode> GpuResource::device_nodes(
    std::span<const ResourceDevice* const> devices) const {
  std::vector<DeviceNode> nodes;
  // The control nodes NVIDIA passes only where they exist (server.go apiDeviceSpecs).
  for (const char* optional : {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"}) {
    std::error_code ec;
    if (std::filesystem::exists(optional, ec)) nodes.push_back(DeviceNode{optional, optional});
  }
  std::vector<unsigned> seen;
  for (const ResourceDevice* d : devices) {
    if (std::find(seen.begin(), seen.end(), d->gpu_index) != seen.end()) continue;
    seen.push_back(d->gpu_index);
    const std::string path = fmt::format("/dev/nvidia{}", d->gpu_index);
    nodes.push_back(DeviceNode{path, path});
  }
  return nodes;
}

ContainerAllocation GpuResource::allocate(std::span<const std::string> device_ids) {
  std::vector<const ResourceDevice*> chosen;
  for (const std::string& id : device_ids) chosen.push_back(&device(id));
  const bool any_replica = std::any_of(chosen.begin(), chosen.end(),
                                       [](const ResourceDevice* d) { return d->replica >= 0; });
  if (any_replica && chosen.size() > 1 && config_.fail_requests_greater_than_one)
    throw AllocationError(fmt::format(
        "invalid allocation request for \"{}\": invalid request: maximum request size for "
        "shared resources is 1; found {}",
        group_.resource, chosen.size()));

  // NVIDIA's uniqueDeviceIDsFromAnnotatedDeviceIDs: two replicas of one GPU name it once.
  std::vector<std::string> visible, uuids, names;
  const auto add_once = [](std::vector<std::string>& v, const std::string& s) {
    if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
  };
  for (const ResourceDevice* d : chosen) {
    add_once(visible, d->base_id);
    add_once(uuids, d->cuda_uuid());
    add_once(names, fmt::format("{}={}", config_.cdi_kind, d->id));
  }

  ContainerAllocation a;
  const bool cdi_annotations = includes(config_, DeviceListStrategy::kCdiAnnotations);
  const bool cdi_cri = includes(config_, DeviceListStrategy::kCdiCri);
  if (cdi_annotations)
    a.annotations[config_.cdi_annotation_prefix +
                  annotation_name(++allocations_, group_.resource)] = join(names);
  if (cdi_cri) a.cdi_devices = names;
  if (mps_) {
    try {
      mps_->ensure_started();
    } catch (const std::exception& e) {
      throw AllocationError(
          fmt::format("failed to get allocate response for \"{}\": {}", group_.resource, e.what()));
    }
    mps_->add_client_edits(a);
  }
  const bool all_cdi = std::all_of(
      config_.list_strategies.begin(), config_.list_strategies.end(), [](DeviceListStrategy s) {
        return s == DeviceListStrategy::kCdiAnnotations || s == DeviceListStrategy::kCdiCri;
      });
  if (all_cdi) return a;
  // CUDA's own list (UUIDs, valid in and out of a container) so that the devices are limited
  // even without the NVIDIA container toolkit.
  set_visible_devices(a.envs, uuids);
  if (includes(config_, DeviceListStrategy::kEnvvar))
    a.envs["NVIDIA_VISIBLE_DEVICES"] = join(visible);
  if (includes(config_, DeviceListStrategy::kVolumeMounts)) {
    a.envs["NVIDIA_VISIBLE_DEVICES"] = kVolumeMountsRoot;
    for (const std::string& id : visible)
      a.mounts.push_back(Mount{fmt::format("{}/{}", kVolumeMountsRoot, id), "/dev/null", true});
  }
  if (config_.pass_device_specs) a.devices = device_nodes(chosen);
  return a;
}

std::vector<CdiDeviceEdits> GpuResource::cdi_devices() const {
  std::vector<CdiDeviceEdits> out;
  out.reserve(group_.devices.size());
  for (const ResourceDevice& d : group_.devices) {
    CdiDeviceEdits e;
    e.name = d.id;
    const ResourceDevice* one = &d;
    e.edits.devices = device_nodes(std::span<const ResourceDevice* const>(&one, 1));
    if (mps_) mps_->add_client_edits(e.edits);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace slicelab::device_plugin
