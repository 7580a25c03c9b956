// ApiClusterWriter (api_cluster_writer.h): PATCH annotations, POST binding, errors from Status.
#include "backends/k8s/api_cluster_writer.h"

#include <nlohmann/json.hpp>

namespace slicelab::k8s {

std::string pod_path(const std::string& pod_namespace, const std::string& pod_name) {
  return "/api/v1/namespaces/" + url_escape(pod_namespace) + "/pods/" + url_escape(pod_name);
}

WriteResult ApiClusterWriter::patch_pod_annotations(
    const std::string& pod_namespace, const std::string& pod_name,
    const std::map<std::string, std::string>& annotations) {
  nlohmann::json patch;
  patch["metadata"]["annotations"] = nlohmann::json::object();
  for (const auto& [k, v] : annotations) patch["metadata"]["annotations"][k] = v;
  try {
    client_.merge_patch(pod_path(pod_namespace, pod_name), patch);
  } catch (const ApiError& e) {
    return WriteResult{e.what()};
  } catch (const std::exception& e) {  // a bad server URL or credential file
    return WriteResult{e.what()};
  }
  return {};
}

WriteResult ApiClusterWriter::bind_pod(const std::string& pod_namespace,
                                       const std::string& pod_name, const std::string& pod_uid,
                                       const std::string& node) {
  // The API server checks metadata.uid (when given) against the pod's: a pod deleted and
  // recreated under the same name in the meantime is not bound by mistake.
  nlohmann::json binding = {{"apiVersion", "v1"},
                            {"kind", "Binding"},
                            {"metadata", {{"name", pod_name}, {"namespace", pod_namespace}}},
                            {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  if (!pod_uid.empty()) binding["metadata"]["uid"] = pod_uid;
  try {
    client_.post_json(pod_path(pod_namespace, pod_name) + "/binding", binding);
  } catch (const ApiError& e) {
    return WriteResult{e.what()};
  } catch (const std::exception& e) {
    return WriteResult{e.what()};
  }
  return {};
}

}  // namespace slicelab::k8s
