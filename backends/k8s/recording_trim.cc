// trim_pod, trim_node (recording_trim.h).
#include "backends/k8s/recording_trim.h"

#include <array>
#include <initializer_list>
#include <string_view>

namespace slicelab::k8s {
namespace {

using nlohmann::json;

// Annotation prefixes a replay reads: GPU assignments and the gang and queue keys of the
// schedulers slicelab models (the format's table).
constexpr std::array<std::string_view, 9> kTrimAnnotationPrefixes = {
    "nvidia.com/",
    "hami.io/",
    "slicelab.io/",
    "scheduling.k8s.io/",
    "scheduling.x-k8s.io/",
    "volcano.sh/",
    "kueue.x-k8s.io/",
    "kai.scheduler/",
    "pod-group.scheduling.sigs.k8s.io/"};

const json* trim_member(const json& o, std::string_view key) {
  if (!o.is_object()) return nullptr;
  const auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

// Copies the named members of `from` (any JSON type) into `to`.
void trim_copy(const json& from, json& to, std::initializer_list<std::string_view> keys) {
  for (const std::string_view key : keys) {
    if (const json* v = trim_member(from, key)) to[std::string(key)] = *v;
  }
}

json trim_annotations(const json& annotations) {
  json kept = json::object();
  if (!annotations.is_object()) return kept;
  for (const auto& [key, value] : annotations.items()) {
    for (const std::string_view prefix : kTrimAnnotationPrefixes) {
      if (std::string_view(key).starts_with(prefix)) {
        kept[key] = value;
        break;
      }
    }
  }
  return kept;
}

json trim_containers(const json& containers) {
  json kept = json::array();
  if (!containers.is_array()) return kept;
  for (const json& c : containers) {
    json one = json::object();
    trim_copy(c, one, {"name", "resources"});
    kept.push_back(std::move(one));
  }
  return kept;
}

}  // namespace

json trim_pod(const json& pod) {
  json out = json::object();
  if (const json* meta = trim_member(pod, "metadata"); meta != nullptr && meta->is_object()) {
    json m = json::object();
    trim_copy(*meta, m,
              {"name", "namespace", "uid", "resourceVersion", "creationTimestamp",
               "deletionTimestamp", "labels"});
    if (const json* a = trim_member(*meta, "annotations")) {
      json kept = trim_annotations(*a);
      if (!kept.empty()) m["annotations"] = std::move(kept);
    }
    if (const json* owners = trim_member(*meta, "ownerReferences"); owners && owners->is_array()) {
      json kept = json::array();
      for (const json& o : *owners) {
        json one = json::object();
        trim_copy(o, one, {"kind", "name", "uid"});
        kept.push_back(std::move(one));
      }
      m["ownerReferences"] = std::move(kept);
    }
    out["metadata"] = std::move(m);
  }
  if (const json* spec = trim_member(pod, "spec"); spec != nullptr && spec->is_object()) {
    json s = json::object();
    trim_copy(*spec, s,
              {"nodeName", "schedulerName", "priority", "priorityClassName", "nodeSelector",
               "overhead", "resourceClaims"});
    if (const json* c = trim_member(*spec, "containers")) s["containers"] = trim_containers(*c);
    if (const json* c = trim_member(*spec, "initContainers"))
      s["initContainers"] = trim_containers(*c);
    out["spec"] = std::move(s);
  }
  if (const json* status = trim_member(pod, "status"); status != nullptr && status->is_object()) {
    json st = json::object();
    trim_copy(*status, st, {"phase", "startTime"});
    if (const json* conds = trim_member(*status, "conditions"); conds && conds->is_array()) {
      json kept = json::array();
      for (const json& c : *conds) {
        const json* type = trim_member(c, "type");
        if (type == nullptr || *type != "PodScheduled") continue;
        json one = {{"type", "PodScheduled"}};
        trim_copy(c, one, {"status", "lastTransitionTime", "reason"});
        kept.push_back(std::move(one));
      }
      if (!kept.empty()) st["conditions"] = std::move(kept);
    }
    if (const json* cs = trim_member(*status, "containerStatuses"); cs && cs->is_array()) {
      json kept = json::array();
      for (const json& c : *cs) {
        json one = json::object();
        const json* state = trim_member(c, "state");
        if (const json* t = state ? trim_member(*state, "terminated") : nullptr) {
          json term = json::object();
          trim_copy(*t, term, {"startedAt", "finishedAt", "exitCode", "reason"});
          one["state"] = {{"terminated", std::move(term)}};
        }
        kept.push_back(std::move(one));
      }
      st["containerStatuses"] = std::move(kept);
    }
    out["status"] = std::move(st);
  }
  return out;
}

json trim_node(const json& node) {
  json out = json::object();
  if (const json* meta = trim_member(node, "metadata"); meta != nullptr && meta->is_object()) {
    json m = json::object();
    trim_copy(*meta, m, {"name", "uid", "resourceVersion", "creationTimestamp", "labels"});
    out["metadata"] = std::move(m);
  }
  if (const json* spec = trim_member(node, "spec"); spec != nullptr && spec->is_object()) {
    json s = json::object();
    trim_copy(*spec, s, {"unschedulable", "taints"});
    out["spec"] = std::move(s);
  }
  if (const json* status = trim_member(node, "status"); status != nullptr && status->is_object()) {
    json st = json::object();
    trim_copy(*status, st, {"capacity", "allocatable"});
    out["status"] = std::move(st);
  }
  return out;
}

json trim_object(WatchKind kind, const json& object) {
  return kind == WatchKind::Pod ? trim_pod(object) : trim_node(object);
}

}  // namespace slicelab::k8s
