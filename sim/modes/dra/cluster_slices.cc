#include "sim/modes/dra/cluster_slices.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "workloads/hardware/mig_profiles.h"

namespace slicelab {
namespace {

constexpr const char* kDriver = "gpu.nvidia.com";

// A stable GPU UUID in NVIDIA's format, from FNV-1a over the node name and GPU index.
std::string gpu_uuid(const std::string& node, int index) {
  const auto fnv = [&](uint64_t h) {
    for (const char c : node) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    h = (h ^ static_cast<uint64_t>(index)) * 1099511628211ULL;
    return h;
  };
  const auto mix = [](uint64_t z) {  // splitmix64's finalizer: every input bit moves every output
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  const uint64_t a = mix(fnv(14695981039346656037ULL));
  const uint64_t b = mix(a ^ 0x9e3779b97f4a7c15ULL);
  return fmt::format("GPU-{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xffff,
                     a & 0xffff, b >> 48, b & 0xffffffffffffULL);
}

DraAttribute attr(const std::string& name, DraAttributeType type, std::string text,
                  int64_t int_value = 0) {
  DraAttribute a;
  a.name = name;
  a.qualified = std::string(kDriver) + "/" + name;
  a.type = type;
  a.string_value = std::move(text);
  a.int_value = int_value;
  return a;
}
DraQuantity count(int64_t v) {
  return {v, std::to_string(v)};
}
DraQuantity mebibytes(int64_t mib) {
  return {mib << 20, fmt::format("{}Mi", mib)};
}
DraDeviceCapacity cap(const std::string& name, DraQuantity v) {
  DraDeviceCapacity c;
  c.name = name;
  c.qualified = std::string(kDriver) + "/" + name;
  c.value = std::move(v);
  return c;
}

// Counters of a GPU or partition: its multiprocessors and memory, and the memory slices it
// covers (one counter each, as the driver names them).
std::vector<DraCounter> counters(int sms, int64_t memory_mib, int first_slot, int slots) {
  std::vector<DraCounter> out{{"multiprocessors", count(sms)}, {"memory", mebibytes(memory_mib)}};
  for (int s = first_slot; s < first_slot + slots; ++s)
    out.push_back({fmt::format("memory-slice-{}", s), count(1)});
  return out;
}

// "1g.10gb+me" -> "1g10gb-me", as the driver's toRFC1123Compliant(ReplaceAll(".", "")).
std::string profile_token(const std::string& profile) {
  std::string out;
  for (const char c : profile) {
    if (c == '.') continue;
    out += (c == '+') ? '-' : c;
  }
  return out;
}

}  // namespace

NvidiaProduct nvidia_product(const std::string& m) {
  struct Row {
    const char *model, *product, *arch, *cc;
  };
  static constexpr Row kRows[] = {
      {"P100", "Tesla P100-PCIE-16GB", "Pascal", "6.0.0"},
      {"V100-16GB", "Tesla V100-SXM2-16GB", "Volta", "7.0.0"},
      {"V100-32GB", "Tesla V100-SXM2-32GB", "Volta", "7.0.0"},
      {"T4", "Tesla T4", "Turing", "7.5.0"},
      {"A10", "NVIDIA A10", "Ampere", "8.6.0"},
      {"A30", "NVIDIA A30", "Ampere", "8.0.0"},
      {"L4", "NVIDIA L4", "Ada Lovelace", "8.9.0"},
      {"A100-40GB", "NVIDIA A100-SXM4-40GB", "Ampere", "8.0.0"},
      {"A100-80GB", "NVIDIA A100-SXM4-80GB", "Ampere", "8.0.0"},
      {"H100-80GB", "NVIDIA H100 80GB HBM3", "Hopper", "9.0.0"},
      {"H200", "NVIDIA H200", "Hopper", "9.0.0"},
  };
  for (const Row& r : kRows)
    if (m == r.model) return {r.product, r.arch, r.cc};
  return {"NVIDIA " + m, "unknown", "0.0.0"};
}

std::vector<DraResourceSlice> cluster_resource_slices(const ClusterSpec& cluster,
                                                      const GpuCatalog& catalog,
                                                      const ClusterSliceOptions& options) {
  std::vector<DraResourceSlice> out;
  for (const NodeGroup& group : cluster.groups) {
    if (group.gpus_per_node <= 0) continue;
    const GpuModel& model = catalog.models()[group.gpu_model];
    const NvidiaProduct product = nvidia_product(model.name);
    const MigTable* mig = options.mig_partitions && !options.consumable_memory && model.mig_capable
                              ? mig_table_for(model.name)
                              : nullptr;
    for (int i = 0; i < group.count; ++i) {
      const std::string node = group.node_names.empty() ? fmt::format("{}-{}", group.name, i)
                                                        : group.node_names[static_cast<size_t>(i)];
      DraResourceSlice devices;
      devices.driver = kDriver;
      devices.node_name = node;
      devices.pool = {node, 1, mig != nullptr ? 2 : 1};
      DraResourceSlice shared = devices;
      shared.name = fmt::format("{}-{}-0", node, kDriver);
      devices.name = fmt::format("{}-{}-{}", node, kDriver, mig != nullptr ? 1 : 0);
      for (int g = 0; g < group.gpus_per_node; ++g) {
        const std::string uuid = gpu_uuid(node, g);
        const std::vector<DraAttribute> common = {
            attr("architecture", DraAttributeType::String, product.architecture),
            attr("brand", DraAttributeType::String, "Nvidia"),
            attr("cudaComputeCapability", DraAttributeType::Version, product.compute_capability),
            attr("driverVersion", DraAttributeType::Version, options.driver_version),
            attr("productName", DraAttributeType::String, product.product_name),
        };
        DraDevice gpu;
        gpu.name = fmt::format("gpu-{}", g);
        gpu.attributes = common;
        gpu.attributes.push_back(attr("index", DraAttributeType::Int, "", g));
        gpu.attributes.push_back(attr("type", DraAttributeType::String, "gpu"));
        gpu.attributes.push_back(attr("uuid", DraAttributeType::String, uuid));
        gpu.capacity = {cap("memory", mebibytes(model.memory_mib)),
                        cap("multiprocessors", count(model.sm_count))};
        if (options.consumable_memory) {
          // A claim consumes all of a shared device's capacity it does not request and that
          // has no default (KEP-5075): memory alone, as the driver publishes a GPU without
          // MIG, so that claims share the GPU by memory.
          gpu.capacity.pop_back();
          gpu.allow_multiple_allocations = true;
          DraCapacityRequestPolicy policy;
          policy.default_value = mebibytes(options.memory_step_mib);
          DraCapacityRequestPolicyRange range;
          range.min = mebibytes(options.memory_step_mib);
          range.step = mebibytes(options.memory_step_mib);
          policy.valid_range = range;
          gpu.capacity[0].request_policy = policy;
        }
        const std::string set = fmt::format("gpu-{}-counter-set", g);
        if (mig != nullptr) {
          // The full GPU takes every counter: it and any partition exclude each other.
          const auto all = counters(mig->sm_count, model.memory_mib, 0, mig->memory_slots);
          shared.shared_counters.push_back({set, all});
          gpu.consumes_counters.push_back({set, all});
        }
        devices.devices.push_back(std::move(gpu));
        if (mig == nullptr) continue;
        for (const MigProfile& p : mig->profiles) {
          for (int start = 0; start + p.memory_slots <= mig->memory_slots; ++start) {
            if (!p.may_start_at(start)) continue;
            DraDevice part;
            part.name = fmt::format("gpu-{}-mig-{}-{}-{}", g, profile_token(p.name), p.id, start);
            part.attributes = common;
            part.attributes.push_back(attr("parentUUID", DraAttributeType::String, uuid));
            part.attributes.push_back(attr("profile", DraAttributeType::String, p.name));
            part.attributes.push_back(attr("type", DraAttributeType::String, "mig"));
            part.capacity = {cap("memory", mebibytes(p.memory_mib())),
                             cap("multiprocessors", count(p.sms))};
            part.consumes_counters.push_back(
                {set, counters(p.sms, p.memory_mib(), start, p.memory_slots)});
            devices.devices.push_back(std::move(part));
          }
        }
      }
      if (mig != nullptr) out.push_back(std::move(shared));
      out.push_back(std::move(devices));
    }
  }
  return out;
}

}  // namespace slicelab
