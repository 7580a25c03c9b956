#include "backends/device_plugin/pod_source_api.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "workloads/kube/kube_quantity.h"
#include "workloads/rfc3339.h"

namespace slicelab::device_plugin {
namespace {

using nlohmann::json;

// A string member of an object, "" when absent or not a string.
std::string text_of(const json& object, const char* key) {
  if (!object.is_object()) return "";
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const json* member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

// A whole, non-negative quantity ("2", "3000") as Kubernetes reads it; nullopt otherwise.
std::optional<int64_t> whole_quantity(const json& value) {
  const std::string text = value.is_string()   ? value.get<std::string>()
                           : value.is_number() ? value.dump()
                                               : std::string();
  std::string error;
  const auto q = parse_quantity(text, error);
  if (!q || q->negative) return std::nullopt;
  const auto v = q->scaled_up(0);
  if (!v || q->scaled_up(3).value_or(-1) != *v * 1000) return std::nullopt;
  return v;
}

// A container's value of `name`: its limit, else its request (Kubernetes defaults one to the
// other; extended resources must have both equal). 0 when absent or unreadable.
int64_t container_value(const json& container, const std::string& name) {
  const json* resources = member(container, "resources");
  if (!resources) return 0;
  for (const char* part : {"limits", "requests"}) {
    const json* values = member(*resources, part);
    if (!values) continue;
    if (const json* v = member(*values, name.c_str()))
      if (const auto n = whole_quantity(*v)) return *n;
  }
  return 0;
}

class ApiPodSource final : public PodSource {
 public:
  ApiPodSource(k8s::ApiClient& client, std::string node)
      : client_(client), node_(std::move(node)) {}

  std::optional<PendingPod> pending_pod(std::string_view resource, int device_count) override;
  void mark_allocated(const PendingPod& pod) override;

 private:
  std::vector<json> list_pods();

  k8s::ApiClient& client_;
  std::string node_;
  std::mutex mutex_;
  // What the last LIST said of each candidate, by pod key: what mark_allocated writes next.
  struct Seen {
    int containers_done = 0;
    int gpu_containers = 0;
    bool hami_allocating = false;
  };
  std::map<std::string, Seen> seen_;
  // Containers marked by this source per pod: a LIST answered from a cache that has not seen
  // the patch yet must not give the same container again. Pruned to the pods the last LIST
  // showed.
  std::map<std::string, int> marked_;
};

std::string key_of(const PendingPod& p) {
  return p.uid.empty() ? p.namespace_name + "/" + p.name : p.uid;
}

std::vector<json> ApiPodSource::list_pods() {
  // The server filters by node and phase (both are indexed field selectors for pods); the
  // reader checks both again, since a selector the server ignores must not widen the choice.
  const std::string base = "/api/v1/pods?fieldSelector=" +
                           k8s::url_escape("spec.nodeName=" + node_ + ",status.phase=Pending") +
                           "&limit=" + std::to_string(kPodPageSize);
  std::vector<json> pods;
  for (int attempt = 0; attempt < 2; ++attempt) {
    pods.clear();
    std::string cont;
    try {
      for (int page = 0; page < kMaxPodPages; ++page) {
        const json list =
            client_.get_json(cont.empty() ? base : base + "&continue=" + k8s::url_escape(cont));
        if (const json* items = member(list, "items"); items && items->is_array())
          for (const json& item : *items) pods.push_back(item);
        const json* meta = member(list, "metadata");
        cont = meta ? text_of(*meta, "continue") : std::string();
        if (cont.empty()) break;
      }
      return pods;
    } catch (const k8s::ApiError& e) {
      // A continue token that expired between pages: one fresh LIST from the start.
      if (e.status() != 410 || attempt > 0) throw;
    }
  }
  return pods;
}

std::optional<PendingPod> ApiPodSource::pending_pod(std::string_view resource, int device_count) {
  const std::lock_guard lock(mutex_);
  const std::vector<json> pods = list_pods();
  std::optional<PodCandidate> best;
  std::tuple<bool, double, std::string, std::string> best_key;
  std::set<std::string> listed;
  seen_.clear();
  for (const json& object : pods) {
    if (const json* meta = member(object, "metadata")) {
      const std::string uid = text_of(*meta, "uid");
      listed.insert(uid.empty() ? text_of(*meta, "namespace") + "/" + text_of(*meta, "name") : uid);
    }
    auto c = pod_candidate_of(object, node_, resource, device_count);
    if (!c) continue;
    const std::string key = key_of(c->pod);
    if (const auto m = marked_.find(key); m != marked_.end() && m->second > c->containers_done)
      continue;  // this source marked more than the LIST shows: an older copy of the pod
    seen_[key] = Seen{c->containers_done, c->gpu_containers, c->hami_allocating};
    // Annotated pods first (the extender bound them), then the earliest bound, then by name.
    auto k = std::tuple(!c->pod.assignment.has_value(), c->bind_time, c->pod.namespace_name,
                        c->pod.name);
    if (!best || k < best_key) {
      best = std::move(c);
      best_key = std::move(k);
    }
  }
  std::erase_if(marked_, [&](const auto& m) { return !listed.contains(m.first); });
  if (!best) return std::nullopt;
  return std::move(best->pod);
}

void ApiPodSource::mark_allocated(const PendingPod& pod) {
  const std::lock_guard lock(mutex_);
  const std::string key = key_of(pod);
  const auto it = seen_.find(key);
  const Seen seen = it == seen_.end() ? Seen{0, 1, false} : it->second;
  const int done = seen.containers_done + 1;
  json annotations = {{std::string(kGpuAllocatedAnnotation),
                       done >= seen.gpu_containers ? std::string("true") : std::to_string(done)}};
  if (seen.hami_allocating && done >= seen.gpu_containers)
    annotations[std::string(kHamiBindPhase)] = "success";
  client_.merge_patch("/api/v1/namespaces/" + k8s::url_escape(pod.namespace_name) + "/pods/" +
                          k8s::url_escape(pod.name),
                      json{{"metadata", {{"annotations", annotations}}}});
  marked_[key] = done;
  if (it != seen_.end()) it->second.containers_done = done;
}

}  // namespace

std::optional<PodCandidate> pod_candidate_of(const json& pod, std::string_view node,
                                             std::string_view resource, int device_count) {
  const json* meta = member(pod, "metadata");
  const json* spec = member(pod, "spec");
  if (!meta || !spec) return std::nullopt;
  if (text_of(*spec, "nodeName") != node) return std::nullopt;
  const json* status = member(pod, "status");
  const std::string phase = status ? text_of(*status, "phase") : std::string();
  if (!phase.empty() && phase != "Pending") return std::nullopt;
  if (member(*meta, "deletionTimestamp")) return std::nullopt;
  const json empty = json::object();
  const json* ann = member(*meta, "annotations");
  if (!ann || !ann->is_object()) ann = &empty;
  const std::string hami = text_of(*ann, kHamiBindPhase.data());
  if (hami == "success" || hami == "failed") return std::nullopt;

  PodCandidate c;
  if (const json* marked = member(*ann, kGpuAllocatedAnnotation.data())) {
    const std::string text = marked->is_string() ? marked->get<std::string>() : std::string();
    const auto [end, ec] =
        std::from_chars(text.data(), text.data() + text.size(), c.containers_done);
    // "true", or anything but a count: the pod has all its devices.
    if (ec != std::errc() || end != text.data() + text.size() || c.containers_done < 0)
      return std::nullopt;
  }
  // The containers asking for the resource, in the order the kubelet allocates them.
  const std::string name(resource);
  std::vector<const json*> asking;
  for (const char* list : {"initContainers", "containers"}) {
    const json* containers = member(*spec, list);
    if (!containers) continue;
    if (!containers->is_array()) return std::nullopt;
    for (const json& one : *containers)
      if (container_value(one, name) > 0) asking.push_back(&one);
  }
  c.gpu_containers = static_cast<int>(asking.size());
  if (c.containers_done >= c.gpu_containers) return std::nullopt;
  const json& chosen = *asking[static_cast<size_t>(c.containers_done)];
  if (container_value(chosen, name) != device_count) return std::nullopt;

  PendingPod& p = c.pod;
  p.namespace_name = text_of(*meta, "namespace");
  p.name = text_of(*meta, "name");
  p.uid = text_of(*meta, "uid");
  if (p.name.empty()) return std::nullopt;
  p.gpus = device_count;
  p.memory_mib = container_value(chosen, "nvidia.com/gpumem");  // HAMi: MiB per GPU
  p.memory_percent = static_cast<int>(
      std::min<int64_t>(100, container_value(chosen, "nvidia.com/gpumem-percentage")));
  p.cores =
      static_cast<int>(std::min<int64_t>(100, container_value(chosen, "nvidia.com/gpucores")));
  if (const std::string text = text_of(*ann, k8s::kGpuAssignmentAnnotation.data());
      !text.empty() && c.gpu_containers == 1) {
    std::string error;
    auto a = k8s::parse_gpu_assignment(text, error);
    if (a && (a->node.empty() || a->node == node) &&
        a->gpus.size() == static_cast<size_t>(device_count))
      p.assignment = std::move(a);
  }
  c.hami_allocating = hami == "allocating";
  const std::string bound = text_of(*ann, kHamiBindTime.data());
  int64_t seconds = 0;
  const auto [end, ec] = std::from_chars(bound.data(), bound.data() + bound.size(), seconds);
  if (!bound.empty() && ec == std::errc() && end == bound.data() + bound.size()) {
    c.bind_time = static_cast<double>(seconds);
  } else {
    std::string error;
    c.bind_time = parse_rfc3339_seconds(text_of(*meta, "creationTimestamp"), error).value_or(0);
  }
  return c;
}

std::unique_ptr<PodSource> make_api_pod_source(k8s::ApiClient& client, std::string node_name) {
  return std::make_unique<ApiPodSource>(client, std::move(node_name));
}

}  // namespace slicelab::device_plugin
