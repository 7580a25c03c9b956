#include "backends/device_plugin/resource_devices.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "workloads/input_error.h"

namespace slicelab::device_plugin {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

ResourceDevice whole_gpu(const DetectedGpu& g, bool id_index) {
  ResourceDevice d;
  d.id = id_index ? std::to_string(g.index) : g.uuid;
  d.base_id = d.id;
  d.gpu_uuid = g.uuid;
  d.gpu_index = g.index;
  d.memory_mib = static_cast<int64_t>(g.memory_bytes) / kMiB;
  return d;
}

ResourceDevice mig_device(const DetectedGpu& g, size_t slot, bool id_index) {
  const MigInstance& m = g.mig_instances[slot];
  ResourceDevice d;
  // NVIDIA's index strategy names a MIG device "<gpu>:<instance>".
  d.id = id_index ? fmt::format("{}:{}", g.index, slot) : m.uuid;
  d.base_id = d.id;
  d.gpu_uuid = g.uuid;
  d.mig_uuid = m.uuid;
  d.gpu_index = g.index;
  d.mig_slot = static_cast<int>(slot);
  d.memory_mib = static_cast<int64_t>(m.memory_bytes) / kMiB;
  return d;
}

DeviceGroup& group_named(std::vector<DeviceGroup>& groups, const std::string& name, bool mig) {
  for (DeviceGroup& g : groups)
    if (g.resource == name) return g;
  groups.push_back(DeviceGroup{name, {}, mig});
  return groups.back();
}

// Whether device `d` is one that a resource's `devices` list names (an index or a UUID).
bool listed(const ResourceDevice& d, std::span<const std::string> refs) {
  if (refs.empty()) return true;
  for (const std::string& r : refs)
    if (r == d.gpu_uuid || (!d.mig_uuid.empty() && r == d.mig_uuid) ||
        (d.mig_uuid.empty() && r == std::to_string(d.gpu_index)) ||
        (d.mig_slot >= 0 && r == fmt::format("{}:{}", d.gpu_index, d.mig_slot)))
      return true;
  return false;
}

}  // namespace

std::vector<DeviceGroup> device_groups(MigStrategy strategy, std::span<const DetectedGpu> gpus,
                                       bool id_index) {
  std::vector<DeviceGroup> groups;
  const bool any_mig =
      std::any_of(gpus.begin(), gpus.end(), [](const DetectedGpu& g) { return g.mig_enabled; });
  if (strategy == MigStrategy::kNone || !any_mig) {
    DeviceGroup& g = group_named(groups, "nvidia.com/gpu", false);
    for (const DetectedGpu& gpu : gpus) g.devices.push_back(whole_gpu(gpu, id_index));
    return groups;
  }
  if (strategy == MigStrategy::kSingle) {
    // NVIDIA's single strategy: every GPU in MIG mode, every instance of one profile.
    std::string profile;
    DeviceGroup& g = group_named(groups, "nvidia.com/gpu", true);
    for (const DetectedGpu& gpu : gpus) {
      if (!gpu.mig_enabled)
        throw InputError(
            fmt::format("migStrategy single: GPU {} ({}) is not in MIG mode while others are; use "
                        "migStrategy mixed",
                        gpu.index, gpu.uuid));
      for (size_t s = 0; s < gpu.mig_instances.size(); ++s) {
        const std::string& p = gpu.mig_instances[s].profile;
        if (g.devices.empty()) profile = p;
        if (p != profile)
          throw InputError(fmt::format(
              "migStrategy single: GPU {} has a {} instance beside {} ones (mixed profiles); "
              "use migStrategy mixed",
              gpu.index, p.empty() ? "unnamed" : p, profile.empty() ? "unnamed" : profile));
        g.devices.push_back(mig_device(gpu, s, id_index));
      }
    }
    return groups;
  }
  for (const DetectedGpu& gpu : gpus) {
    if (!gpu.mig_enabled) {
      group_named(groups, "nvidia.com/gpu", false).devices.push_back(whole_gpu(gpu, id_index));
      continue;
    }
    for (size_t s = 0; s < gpu.mig_instances.size(); ++s) {
      const std::string& p = gpu.mig_instances[s].profile;
      if (p.empty())
        throw InputError(fmt::format(
            "migStrategy mixed: MIG instance {} of GPU {} has no profile name to advertise it "
            "under (nvidia.com/mig-<profile>)",
            gpu.mig_instances[s].uuid, gpu.index));
      group_named(groups, "nvidia.com/mig-" + p, true)
          .devices.push_back(mig_device(gpu, s, id_index));
    }
  }
  return groups;
}

std::vector<DeviceGroup> replicate(std::vector<DeviceGroup> groups,
                                   std::span<const ReplicatedResource> resources) {
  std::vector<DeviceGroup> out;
  for (DeviceGroup& g : groups) {
    const ReplicatedResource* r = nullptr;
    for (const ReplicatedResource& candidate : resources)
      if (candidate.name == g.resource) r = &candidate;
    if (r == nullptr) {
      out.push_back(std::move(g));
      continue;
    }
    for (const std::string& ref : r->devices)
      if (std::none_of(g.devices.begin(), g.devices.end(), [&](const ResourceDevice& d) {
            return listed(d, std::span<const std::string>(&ref, 1));
          }))
        throw InputError(fmt::format("sharing: {} lists device '{}', which this node's {} lacks",
                                     r->name, ref, g.resource));
    DeviceGroup shared{r->rename.empty() ? g.resource : r->rename, {}, g.mig, r->replicas, true};
    DeviceGroup rest{g.resource, {}, g.mig};
    for (const ResourceDevice& d : g.devices) {
      if (!listed(d, r->devices)) {
        rest.devices.push_back(d);
        continue;
      }
      for (int n = 0; n < r->replicas; ++n) {
        ResourceDevice rd = d;
        rd.id = fmt::format("{}::{}", d.base_id, n);  // NVIDIA's AnnotatedID
        rd.replica = n;
        shared.devices.push_back(std::move(rd));
      }
    }
    // GPUs left out of `devices` keep their own name, whole; under the same name as the
    // replicas (no rename) they are advertised beside them, as the plugin once did.
    if (shared.resource == rest.resource) {
      shared.devices.insert(shared.devices.end(), rest.devices.begin(), rest.devices.end());
      out.push_back(std::move(shared));
    } else {
      if (!rest.devices.empty()) out.push_back(std::move(rest));
      out.push_back(std::move(shared));
    }
  }
  for (size_t i = 0; i < out.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (out[i].resource == out[j].resource)
        throw InputError(fmt::format(
            "sharing: {} would be advertised twice (a rename onto a resource the node has)",
            out[i].resource));
  return out;
}

}  // namespace slicelab::device_plugin
