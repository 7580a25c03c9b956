// ApiClusterWriter (api_cluster_writer.h): PATCH annotations, POST binding, errors from Status.
#include "backends/k8s/api_cluster_writer.h"

#include <nlohmann/json.hpp>

namespace slicelab::k8s {

std::string pod_path(const std::string& pod_namespace, const std::string& pod_name) {
  return "/api/v1/namespaces/" + url_escape(pod_namespace) + "/pods/" + url_escape(pod_name);
}

namespace {

WriteResult merge_patch(ApiClient& client, const std::string& pod_namespace,
                        const std::string& pod_name, const std::string& pod_uid,
                        const std::string& resource_version,
                        const std::map<std::string, std::string>& annotations) {
  nlohmann::json patch;
  // metadata.uid is immutable: the API server refuses the patch (422) when the pod it finds
  // under this name has another UID, so a pod recreated meanwhile is not annotated.
  if (!pod_uid.empty()) patch["metadata"]["uid"] = pod_uid;
  // A resourceVersion in a patch is optimistic concurrency: 409 Conflict when the pod has
  // changed since the read that gave it (bound by someone else in between, for one).
  if (!resource_version.empty()) patch["metadata"]["resourceVersion"] = resource_version;
  patch["metadata"]["annotations"] = nlohmann::json::object();
  for (const auto& [k, v] : annotations) patch["metadata"]["annotations"][k] = v;
  try {
    client.merge_patch(pod_path(pod_namespace, pod_name), patch);
  } catch (const ApiError& e) {
    return WriteResult{e.what()};
  } catch (const std::exception& e) {  // a bad server URL or credential file
    return WriteResult{e.what()};
  }
  return {};
}

std::string string_at(const nlohmann::json& object, const char* part, const char* field) {
  const auto p = object.find(part);
  if (p == object.end() || !p->is_object()) return "";
  const auto f = p->find(field);
  return f != p->end() && f->is_string() ? f->get<std::string>() : "";
}

}  // namespace

WriteResult ApiClusterWriter::patch_pod_annotations(
    const std::string& pod_namespace, const std::string& pod_name,
    const std::map<std::string, std::string>& annotations) {
  return merge_patch(client_, pod_namespace, pod_name, "", "", annotations);
}

WriteResult ApiClusterWriter::annotate_pod(const std::string& pod_namespace,
                                           const std::string& pod_name, const std::string& pod_uid,
                                           const std::string& resource_version,
                                           const std::map<std::string, std::string>& annotations) {
  return merge_patch(client_, pod_namespace, pod_name, pod_uid, resource_version, annotations);
}

LivePodRead ApiClusterWriter::read_pod(const std::string& pod_namespace,
                                       const std::string& pod_name) {
  LivePodRead out;
  out.live = true;
  nlohmann::json pod;
  try {
    pod = client_.get_json(pod_path(pod_namespace, pod_name), kMaxPodBytes);
  } catch (const std::exception& e) {  // ApiError (404, no answer), a bad credential file
    out.error = e.what();
    return out;
  }
  if (!pod.is_object()) {
    out.error = "GET " + pod_path(pod_namespace, pod_name) + ": the answer is not a Pod";
    return out;
  }
  out.pod.uid = string_at(pod, "metadata", "uid");
  out.pod.resource_version = string_at(pod, "metadata", "resourceVersion");
  out.pod.node_name = string_at(pod, "spec", "nodeName");
  out.pod.phase = string_at(pod, "status", "phase");
  const auto meta = pod.find("metadata");
  out.pod.deleting = meta != pod.end() && meta->is_object() &&
                     meta->contains("deletionTimestamp") && !(*meta)["deletionTimestamp"].is_null();
  return out;
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
