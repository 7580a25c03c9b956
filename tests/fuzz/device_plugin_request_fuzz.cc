// Fuzzes the device plugin's request handling without its transport (plugin_requests): the
// bytes of an Allocate, GetPreferredAllocation or PreStartContainer request, parsed as the gRPC
// server parses them, checked (limits, the kubelet's guarantees) and answered by a node's real
// resources (whole GPUs on a topology, time-slice replicas, MIG devices, interposer shares whose
// files go to a scratch folder) on four made-up GPUs. Beyond no crash, every answer must keep
// the API's promises: an Allocate that passed named known, healthy IDs once each; a preferred
// allocation holds only available IDs, each once, must_include among them, at most the size.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backends/device_plugin/device_health.h"
#include "backends/device_plugin/node_resources.h"
#include "backends/device_plugin/plugin_config.h"
#include "backends/device_plugin/plugin_requests.h"
#include "backends/device_plugin/pod_source.h"
#include "tests/fuzz/fuzz_input_file.h"

namespace {

namespace dp = slicelab::device_plugin;

constexpr unsigned kGpus = 4;

// A broken promise is a finding: abort with libFuzzer's crash report.
void require(bool holds) {
  if (!holds) __builtin_trap();
}

// Every Allocate finds a pod: by turns one the extender annotated with distinct GPUs (when
// there are enough) and one with only its requests.
class AnyPod final : public dp::PodSource {
 public:
  std::optional<dp::PendingPod> pending_pod(std::string_view /*resource*/,
                                            int device_count) override {
    dp::PendingPod pod;
    pod.namespace_name = "fuzz";
    pod.name = "pod-" + std::to_string(n_);
    pod.uid = "uid-" + std::to_string(n_);
    pod.gpus = device_count;
    pod.memory_mib = 1024;
    pod.cores = 30;
    if (n_++ % 2 == 0 && device_count <= static_cast<int>(kGpus)) {
      slicelab::k8s::GpuAssignment a;
      for (int i = 0; i < device_count; ++i)
        a.gpus.push_back(slicelab::k8s::AssignedGpu{i, "", 512, 20});
      pod.assignment = a;
    }
    return pod;
  }
  void mark_allocated(const dp::PendingPod& /*pod*/) override {}

 private:
  uint64_t n_ = 0;
};

std::vector<slicelab::DetectedGpu> node_gpus(bool mig) {
  std::vector<slicelab::DetectedGpu> gpus(kGpus);
  for (unsigned i = 0; i < kGpus; ++i) {
    gpus[i].index = i;
    gpus[i].name = "NVIDIA A100-SXM4-40GB";
    gpus[i].uuid = "GPU-fuzz-000" + std::to_string(i);
    gpus[i].memory_bytes = uint64_t{40} << 30;
    if (mig && i >= 2) {
      gpus[i].mig_enabled = true;
      for (int k = 0; k < 2; ++k)
        gpus[i].mig_instances.push_back(
            slicelab::MigInstance{"MIG-fuzz-" + std::to_string(i) + "-" + std::to_string(k),
                                  "1g.5gb", uint64_t{5} << 30});
    }
  }
  return gpus;
}

struct Node {
  // The resources keep references to their config and the health: members, kept as long.
  dp::NodePluginConfig whole, sliced, mixed, shares;
  dp::DeviceHealth health;
  AnyPod pods;
  std::vector<std::unique_ptr<dp::ResourcePlugin>> resources;
  std::vector<std::unique_ptr<dp::PluginRequests>> requests;
  std::filesystem::path regions;

  Node() {
    const std::filesystem::path scratch = slicelab::fuzz::scratch_folder();
    regions = scratch / "regions";
    const auto add = [&](const dp::NodePluginConfig& config, bool mig) {
      const std::vector<slicelab::DetectedGpu> gpus = node_gpus(mig);
      for (auto& r : dp::make_node_resources(config, gpus, health, &pods))
        resources.push_back(std::move(r));
    };
    whole.topology_file = "nvswitch-4";
    add(whole, false);
    sliced.mode = dp::ShareMode::kTimeSlice;
    sliced.fail_requests_greater_than_one = true;
    sliced.replicated.push_back(dp::ReplicatedResource{"nvidia.com/gpu", "", 3, {}});
    add(sliced, false);
    mixed.mig = dp::MigStrategy::kMixed;
    mixed.list_strategies = {dp::DeviceListStrategy::kCdiCri};
    add(mixed, true);
    shares.mode = dp::ShareMode::kInterposer;
    shares.interposer.split_count = 3;
    shares.interposer.host_preload_dir = (scratch / "preload").string();
    shares.interposer.host_region_root = regions.string();
    add(shares, false);
    for (auto& r : resources) requests.push_back(std::make_unique<dp::PluginRequests>(*r));
  }
};

Node& node() {
  static Node n;
  return n;
}

void check_allocate(const v1beta1::AllocateRequest& request,
                    const v1beta1::AllocateResponse& response,
                    const std::vector<dp::AdvertisedDevice>& devices) {
  require(response.container_responses_size() == request.container_requests_size());
  std::set<std::string> seen;
  for (const auto& container : request.container_requests()) {
    require(container.devices_ids_size() > 0);
    for (const std::string& id : container.devices_ids()) {
      require(seen.insert(id).second);
      bool healthy_and_known = false;
      for (const dp::AdvertisedDevice& d : devices)
        if (d.id == id) healthy_and_known = d.healthy;
      require(healthy_and_known);
    }
  }
}

void check_preferred(const v1beta1::PreferredAllocationRequest& request,
                     const v1beta1::PreferredAllocationResponse& response) {
  require(response.container_responses_size() == request.container_requests_size());
  for (int c = 0; c < request.container_requests_size(); ++c) {
    const auto& asked = request.container_requests(c);
    const auto& answer = response.container_responses(c);
    const std::set<std::string> available(asked.available_deviceids().begin(),
                                          asked.available_deviceids().end());
    const std::set<std::string> given(answer.deviceids().begin(), answer.deviceids().end());
    require(static_cast<int>(given.size()) == answer.deviceids_size());  // each once
    require(answer.deviceids_size() <= asked.allocation_size());
    for (const std::string& id : given) require(available.contains(id));
    for (const std::string& id : asked.must_include_deviceids()) require(given.contains(id));
  }
}

}  // namespace

// Byte 0: which resource (low 3 bits, modulo their number: whole GPUs, replicas, whole GPUs and
// MIG devices of a mixed node, shares) and which call (next 2 bits: Allocate, preferred,
// PreStartContainer); byte 1: which GPUs are unhealthy (one bit each); the rest: the request's
// protobuf bytes.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  Node& n = node();
  const size_t which = (data[0] & 7u) % n.requests.size();
  const unsigned call = (data[0] >> 3) & 3u;
  for (unsigned g = 0; g < kGpus; ++g) {
    const std::string uuid = "GPU-fuzz-000" + std::to_string(g);
    if ((data[1] >> g) & 1u)
      n.health.mark_unhealthy(uuid, "fuzz");
    else
      n.health.mark_healthy(uuid);
  }
  dp::PluginRequests& requests = *n.requests[which];
  const void* bytes = data + 2;
  const int length = static_cast<int>(size - 2);
  if (call == 0) {
    v1beta1::AllocateRequest request;
    if (!request.ParseFromArray(bytes, length)) return 0;
    v1beta1::AllocateResponse response;
    std::vector<dp::AdvertisedDevice> devices;
    require(requests.devices(devices).ok());
    const dp::RequestStatus status = requests.allocate(request, response);
    if (status.ok()) check_allocate(request, response, devices);
    require(status.code != dp::RequestCode::kInternal);
    // Region folders made for shares: removed, so that the scratch folder stays small.
    std::error_code ignored;
    std::filesystem::remove_all(n.regions, ignored);
  } else if (call == 1) {
    v1beta1::PreferredAllocationRequest request;
    if (!request.ParseFromArray(bytes, length)) return 0;
    v1beta1::PreferredAllocationResponse response;
    const dp::RequestStatus status = requests.preferred(request, response);
    if (status.ok()) check_preferred(request, response);
    require(status.code != dp::RequestCode::kInternal);
  } else {
    v1beta1::PreStartContainerRequest request;
    if (!request.ParseFromArray(bytes, length)) return 0;
    require(requests.pre_start(request).code != dp::RequestCode::kInternal);
  }
  return 0;
}
