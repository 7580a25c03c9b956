#include "workloads/kube/kube_resources.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <vector>

#include "workloads/edit_distance.h"
#include "workloads/hardware/mig_profiles.h"
#include "workloads/kube/kube_names.h"
#include "workloads/kube/kube_yaml_quantities.h"

namespace slicelab {
namespace {

enum class Resource { kCpu, kMemory, kGpu, kGpuMem, kGpuMemPercent, kGpuCores, kMig, kIgnored };

// The names a suggestion may point at; MIG names are matched apart, by their profile.
constexpr std::array<std::string_view, 8> kKnownNames{
    "cpu",
    "memory",
    "nvidia.com/gpu",
    "nvidia.com/gpumem",
    "nvidia.com/gpumem-percentage",
    "nvidia.com/gpucores",
    "nvidia.com/gpu.shared",
    "ephemeral-storage",
};

// The device plugin names a MIG resource after its profile with '+' written '.'
// ("nvidia.com/mig-1g.10gb.me" for 1g.10gb+me), since '+' is not allowed in a resource name.
std::optional<std::string> mig_profile_of(std::string_view resource_suffix) {
  std::string profile(resource_suffix);
  if (is_known_mig_profile(profile)) return profile;
  if (const size_t me = profile.find(".me"); me != std::string::npos) {
    profile[me] = '+';
    if (is_known_mig_profile(profile)) return profile;
  }
  return std::nullopt;
}

std::string suggestion(std::string_view name) {
  // A MIG name with the dash missing or another separator: "nvidia.com/mig1g.10gb".
  if (name.starts_with("nvidia.com/mig") && !name.starts_with(kKubeMigResourcePrefix)) {
    std::string_view rest = name.substr(std::string_view("nvidia.com/mig").size());
    if (!rest.empty() && (rest[0] == '_' || rest[0] == ':' || rest[0] == '.'))
      rest.remove_prefix(1);
    if (mig_profile_of(rest))
      return fmt::format(" (did you mean '{}{}'?)", kKubeMigResourcePrefix, rest);
  }
  const size_t limit = std::max<size_t>(2, name.size() / 3);
  std::string_view best;
  size_t best_d = std::numeric_limits<size_t>::max();
  for (const std::string_view known : kKnownNames) {
    size_t d = edit_distance(name, known);
    // "gpu" for "nvidia.com/gpu": the name without its domain.
    if (const size_t slash = known.find('/');
        slash != std::string_view::npos && known.substr(slash + 1) == name)
      d = 0;
    if (d <= limit && d < best_d) best_d = d, best = known;
  }
  if (best.empty()) return {};
  return fmt::format(" (did you mean '{}'?)", best);
}

// What `name` asks for; fails at the key for a name slicelab does not know.
Resource classify(const YamlReader& yaml, const YAML::Node& key, std::string_view path,
                  std::string_view name, std::string& mig_profile) {
  if (name == "cpu") return Resource::kCpu;
  if (name == "memory") return Resource::kMemory;
  if (name == "nvidia.com/gpu" || name == "nvidia.com/gpu.shared") return Resource::kGpu;
  if (name == "nvidia.com/gpumem") return Resource::kGpuMem;
  if (name == "nvidia.com/gpumem-percentage") return Resource::kGpuMemPercent;
  if (name == "nvidia.com/gpucores") return Resource::kGpuCores;
  if (name == "ephemeral-storage" || name.starts_with("hugepages-")) return Resource::kIgnored;
  if (name.starts_with(kKubeMigResourcePrefix)) {
    std::string_view suffix = name.substr(kKubeMigResourcePrefix.size());
    // The device plugin's renameByDefault appends ".shared" to shared resources.
    if (suffix.ends_with(".shared")) suffix.remove_suffix(std::string_view(".shared").size());
    if (auto profile = mig_profile_of(suffix)) {
      mig_profile = std::move(*profile);
      return Resource::kMig;
    }
    yaml.fail(key, path,
              fmt::format("unknown MIG profile '{}' in resource '{}' (known: {})", suffix, name,
                          known_mig_profile_names()));
  }
  yaml.fail(key, path,
            fmt::format("unknown resource '{}'{} (known: cpu, memory, nvidia.com/gpu, "
                        "nvidia.com/gpumem, nvidia.com/gpumem-percentage, nvidia.com/gpucores, "
                        "nvidia.com/mig-<profile>)",
                        name, suggestion(name)));
}

// The amount in slicelab's unit: thousandths of a core, MiB, a count or a percentage.
int64_t amount(const YamlReader& yaml, Resource r, const YAML::Node& v, std::string_view path) {
  switch (r) {
    case Resource::kCpu:
      return kube_cpu_milli(yaml, v, path);
    case Resource::kMemory:
      return kube_memory_bytes_as_mib(yaml, v, path);
    case Resource::kGpu:
      return yaml.integer(v, path, 0, 64);
    case Resource::kGpuMem:
      // HAMi's unit: a plain integer is MiB; a suffixed quantity is bytes.
      return kube_mebibytes(yaml, v, path);
    case Resource::kGpuMemPercent:
    case Resource::kGpuCores:
      return yaml.integer(v, path, 1, 100);
    case Resource::kMig: {
      const int64_t n = yaml.integer(v, path, 0, 64);
      if (n != 1)
        yaml.fail(v, path,
                  fmt::format("a pod runs on one MIG instance: ask for 1, found {}", v.Scalar()));
      return n;
    }
    case Resource::kIgnored:
      return 0;
  }
  return 0;
}

void record(const YamlReader& yaml, PodResourceRequest& request, Resource r, int64_t value,
            const YAML::Node& at, const std::string& path, const std::string& name,
            const std::string& mig_profile) {
  switch (r) {
    case Resource::kCpu:
      request.set(yaml, request.cpu_milli, value, at, path, name);
      break;
    case Resource::kMemory:
      request.set(yaml, request.memory_mib, value, at, path, name);
      break;
    case Resource::kGpu:
      request.set(yaml, request.gpu_count, value, at, path, name);
      break;
    case Resource::kGpuMem:
      request.set(yaml, request.gpu_memory_mib, value, at, path, name);
      request.hami_default_gpu = true;
      break;
    case Resource::kGpuMemPercent:
      request.set(yaml, request.gpu_memory_percent, value, at, path, name);
      request.hami_default_gpu = true;
      break;
    case Resource::kGpuCores:
      request.set(yaml, request.gpu_milli, value * 10, at, path, name);
      request.hami_default_gpu = true;
      break;
    case Resource::kMig:
      request.set(yaml, request.mig, 0, at, path, name);
      request.mig_profile = mig_profile;
      // A MIG instance is the pod's one GPU: asking for nvidia.com/gpu as well is a conflict.
      request.set(yaml, request.gpu_count, 1, at, path, name);
      break;
    case Resource::kIgnored:
      break;
  }
}

std::string line_of(const YAML::Node& at) {
  if (!at.IsDefined() || at.Mark().is_null()) return {};
  return fmt::format(", line {}", at.Mark().line + 1);
}

}  // namespace

void PodResourceRequest::set(const YamlReader& yaml, RequestedAmount& slot, int64_t value,
                             const YAML::Node& at, std::string path, std::string key) {
  if (slot.given())
    yaml.fail(at, path,
              fmt::format("'{}' asks for what '{}' already gives ({}{}); keep one of them", key,
                          slot.key, slot.path, line_of(slot.at)));
  slot.value = value;
  slot.at = at;
  slot.path = std::move(path);
  slot.key = std::move(key);
}

void read_kubernetes_resources(const YamlReader& yaml, const YAML::Node& node,
                               std::string_view path, PodResourceRequest& request) {
  yaml.require_map(node, path);
  const YAML::Node limits = node["limits"];
  const YAML::Node requests = node["requests"];
  if (!limits.IsDefined() && !requests.IsDefined()) {
    for (const auto& kv : node) {
      const std::string name = kv.first.Scalar();
      const std::string p = join_path(path, name);
      std::string mig;
      const Resource r = classify(yaml, kv.first, p, name, mig);
      record(yaml, request, r, amount(yaml, r, kv.second, p), kv.second, p, name, mig);
    }
    return;
  }
  // A container's resources: the names sit under limits and requests, nothing beside them.
  yaml.check_keys(node, path, {"limits", "requests"});
  const std::string lp = join_path(path, "limits");
  const std::string rp = join_path(path, "requests");
  if (limits.IsDefined()) yaml.require_map(limits, lp);
  if (requests.IsDefined()) yaml.require_map(requests, rp);
  // Every name once, in the order written: limits first, then names only in requests.
  std::vector<std::pair<std::string, YAML::Node>> names;
  if (limits.IsDefined())
    for (const auto& kv : limits) names.emplace_back(kv.first.Scalar(), kv.first);
  if (requests.IsDefined())
    for (const auto& kv : requests)
      if (!limits.IsDefined() || !limits[kv.first.Scalar()].IsDefined())
        names.emplace_back(kv.first.Scalar(), kv.first);
  for (const auto& [name, key] : names) {
    const YAML::Node l = limits.IsDefined() ? limits[name] : YAML::Node();
    const YAML::Node q = requests.IsDefined() ? requests[name] : YAML::Node();
    const std::string lname = join_path(lp, name);
    const std::string qname = join_path(rp, name);
    std::string mig;
    const Resource r = classify(yaml, key, l.IsDefined() ? lname : qname, name, mig);
    if (r == Resource::kIgnored) continue;
    std::optional<int64_t> lv, qv;
    if (l.IsDefined()) lv = amount(yaml, r, l, lname);
    if (q.IsDefined()) qv = amount(yaml, r, q, qname);
    // The scheduler places by requests (a limit alone is the request too); HAMi and the device
    // plugin read extended resources from limits, where Kubernetes requires them to equal any
    // request.
    const bool extended = r != Resource::kCpu && r != Resource::kMemory;
    if (lv && qv) {
      if (extended && *lv != *qv)
        yaml.fail(q, qname,
                  fmt::format("'{}' is {} in requests and {} in limits; Kubernetes requires an "
                              "extended resource's request to equal its limit",
                              name, q.Scalar(), l.Scalar()));
      if (!extended && *qv > *lv)
        yaml.fail(
            q, qname,
            fmt::format("the request ({}) is more than the limit ({})", q.Scalar(), l.Scalar()));
    }
    const bool use_limit = extended ? lv.has_value() : !qv.has_value();
    record(yaml, request, r, use_limit ? *lv : *qv, use_limit ? l : q, use_limit ? lname : qname,
           name, mig);
  }
}

void apply_resource_request(const YamlReader& yaml, const PodResourceRequest& r, PodSpec& pod) {
  const bool counted = r.gpu_count.given();
  pod.gpu_count = counted ? static_cast<int>(r.gpu_count.value) : r.hami_default_gpu ? 1 : 0;
  const std::string count_key = counted ? r.gpu_count.key : "gpu_count";
  if (r.mig.given()) {
    pod.mig_profile = r.mig_profile;
    if (!counted) pod.gpu_count = 1;
    if (pod.gpu_count != 1)
      yaml.fail(r.mig.at, r.mig.path, "a MIG profile is for one-GPU pods (gpu_count: 1)");
  }
  if (r.gpu_milli.given()) {
    pod.gpu_milli = static_cast<int16_t>(r.gpu_milli.value);
    if (pod.gpu_count == 0)
      yaml.fail(r.gpu_milli.at, r.gpu_milli.path,
                fmt::format("a GPU share needs {} of 1", count_key));
    if (pod.gpu_count > 1 && pod.gpu_milli != 1000)
      yaml.fail(r.gpu_milli.at, r.gpu_milli.path,
                fmt::format("a GPU share below 1000 is only for one-GPU pods, this pod asks for {} "
                            "GPUs",
                            pod.gpu_count));
  }
  if (r.gpu_memory_mib.given()) {
    pod.gpu_memory_mib = r.gpu_memory_mib.value;
    if (pod.gpu_count == 0 && pod.gpu_memory_mib > 0)
      yaml.fail(r.gpu_memory_mib.at, r.gpu_memory_mib.path,
                fmt::format("GPU memory needs {} of at least 1", count_key));
  }
  if (r.gpu_memory_percent.given()) {
    // HAMi takes gpumem over the percentage when both are set; one of them is a mistake.
    if (r.gpu_memory_mib.given())
      yaml.fail(r.gpu_memory_percent.at, r.gpu_memory_percent.path,
                fmt::format("give either '{}' or '{}', not both ({}{})", r.gpu_memory_mib.key,
                            r.gpu_memory_percent.key, r.gpu_memory_mib.path,
                            line_of(r.gpu_memory_mib.at)));
    pod.gpu_memory_percent = static_cast<int16_t>(r.gpu_memory_percent.value);
    if (pod.gpu_count == 0)
      yaml.fail(r.gpu_memory_percent.at, r.gpu_memory_percent.path,
                fmt::format("GPU memory needs {} of at least 1", count_key));
  }
  pod.cpu_milli = r.cpu_milli.value;
  pod.memory_mib = r.memory_mib.value;
}

}  // namespace slicelab
