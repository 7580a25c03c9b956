// Builders for the extender's tests: a scenario file with named nodes, Node and Pod objects as
// the API server sends them, and a ClusterWriter that records (or fails) what bind writes.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/k8s/cluster_io.h"

namespace slicelab::testing {

inline nlohmann::json node_object(const std::string& name, const std::string& product, int gpus,
                                  const std::string& cpu = "64",
                                  const std::string& memory = "256Gi") {
  nlohmann::json n;
  n["kind"] = "Node";
  n["metadata"] = {{"name", name}, {"labels", nlohmann::json::object()}};
  n["status"]["allocatable"] = {{"cpu", cpu}, {"memory", memory}};
  if (gpus > 0) {
    n["metadata"]["labels"]["nvidia.com/gpu.product"] = product;
    n["metadata"]["labels"]["nvidia.com/gpu.count"] = std::to_string(gpus);
    n["status"]["allocatable"]["nvidia.com/gpu"] = std::to_string(gpus);
  }
  return n;
}

// One container asking for `gpus` GPUs and, when cores < 100, that share of each (HAMi's
// nvidia.com/gpucores); optionally HAMi's nvidia.com/gpumem in MiB.
inline nlohmann::json pod_object(const std::string& name, int gpus, int cores = 100,
                                 int64_t gpumem_mib = 0, const std::string& node = "") {
  nlohmann::json p;
  p["kind"] = "Pod";
  p["metadata"] = {{"name", name},
                   {"namespace", "default"},
                   {"uid", "uid-" + name},
                   {"creationTimestamp", "2026-01-01T00:00:00Z"}};
  nlohmann::json limits = nlohmann::json::object();
  if (gpus > 0) limits["nvidia.com/gpu"] = std::to_string(gpus);
  if (cores < 100 && gpus > 0) limits["nvidia.com/gpucores"] = std::to_string(cores);
  if (gpumem_mib > 0) limits["nvidia.com/gpumem"] = std::to_string(gpumem_mib);
  p["spec"]["containers"] = nlohmann::json::array(
      {{{"name", "c"},
        {"resources", {{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}, {"limits", limits}}}}});
  if (!node.empty()) p["spec"]["nodeName"] = node;
  p["status"]["phase"] = node.empty() ? "Pending" : "Running";
  return p;
}

// Records what bind writes (or fails it). `live`: the pods a fresh read finds, by "ns/name"
// (a pod not there reads as not found); empty, the writer has no cluster to read, as the
// offline extender's.
class FakeWriter final : public k8s::ClusterWriter {
 public:
  k8s::WriteResult patch_pod_annotations(const std::string& ns, const std::string& name,
                                         const std::map<std::string, std::string>& patch) override {
    std::lock_guard lock(mu);
    for (const auto& [k, v] : patch) annotations[ns + "/" + name][k] = v;
    return {fail_patch ? "patch refused" : ""};
  }
  k8s::WriteResult annotate_pod(const std::string& ns, const std::string& name,
                                const std::string& uid, const std::string& resource_version,
                                const std::map<std::string, std::string>& patch) override {
    {
      std::lock_guard lock(mu);
      annotated_uids[ns + "/" + name] = uid;
      annotated_versions[ns + "/" + name] = resource_version;
    }
    return patch_pod_annotations(ns, name, patch);
  }
  k8s::WriteResult bind_pod(const std::string& ns, const std::string& name, const std::string& uid,
                            const std::string& node) override {
    std::lock_guard lock(mu);
    if (fail_bind) return {"binding refused"};
    bindings[ns + "/" + name] = node;
    bound_uids[ns + "/" + name] = uid;
    return {};
  }
  k8s::LivePodRead read_pod(const std::string& ns, const std::string& name) override {
    std::lock_guard lock(mu);
    ++reads;
    if (live.empty()) return {};
    k8s::LivePodRead r;
    r.live = true;
    const auto it = live.find(ns + "/" + name);
    if (it == live.end()) {
      r.error = "HTTP 404: pods \"" + name + "\" not found";
    } else {
      r.pod = it->second;
    }
    return r;
  }
  size_t writes() {
    std::lock_guard lock(mu);
    return annotations.size() + bindings.size();
  }
  std::mutex mu;
  bool fail_patch = false, fail_bind = false;
  std::map<std::string, std::map<std::string, std::string>> annotations;
  std::map<std::string, std::string> bindings;
  std::map<std::string, std::string> annotated_uids, annotated_versions, bound_uids;
  std::map<std::string, k8s::LivePod> live;
  int reads = 0;
};

}  // namespace slicelab::testing
