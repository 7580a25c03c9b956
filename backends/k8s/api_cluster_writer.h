// The extender's writes to a real cluster over REST: a fresh GET of the pod for bind's checks,
// the GPU-assignment annotations as a JSON merge patch of the pod (with its UID as a
// precondition), then a v1 Binding (with the UID) posted to the pod's binding subresource.
#pragma once

#include "backends/k8s/api_client.h"
#include "backends/k8s/cluster_io.h"

namespace slicelab::k8s {

class ApiClusterWriter final : public ClusterWriter {
 public:
  // The largest Pod answer read (the API server refuses objects over 3 MiB).
  static constexpr size_t kMaxPodBytes = size_t{4} << 20;
  explicit ApiClusterWriter(ApiClient& client) : client_(client) {}
  WriteResult patch_pod_annotations(const std::string& pod_namespace, const std::string& pod_name,
                                    const std::map<std::string, std::string>& annotations) override;
  WriteResult bind_pod(const std::string& pod_namespace, const std::string& pod_name,
                       const std::string& pod_uid, const std::string& node) override;
  WriteResult annotate_pod(const std::string& pod_namespace, const std::string& pod_name,
                           const std::string& pod_uid, const std::string& resource_version,
                           const std::map<std::string, std::string>& annotations) override;
  LivePodRead read_pod(const std::string& pod_namespace, const std::string& pod_name) override;

 private:
  ApiClient& client_;
};

// The REST path of a pod ("/api/v1/namespaces/ns/pods/name"), segments escaped.
std::string pod_path(const std::string& pod_namespace, const std::string& pod_name);

}  // namespace slicelab::k8s
