// The seams between the extender's decisions and a real cluster: what the extender writes
// (ClusterWriter) and how a watcher feeds it what the API server reports (ClusterWatchSink).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <string>

namespace slicelab::k8s {

// Result of a write to the API server: empty `error` means success. Kept as a value (not an
// exception) because the extender forwards the text to kube-scheduler in its Error fields.
struct WriteResult {
  std::string error;
  bool ok() const { return error.empty(); }
};

// What bind checks of a pod as the cluster holds it at the moment of the bind.
struct LivePod {
  std::string uid;               // metadata.uid
  std::string resource_version;  // metadata.resourceVersion: this state of the pod
  std::string phase;             // status.phase ("" when absent)
  std::string node_name;         // spec.nodeName ("" while unbound)
  bool deleting = false;         // metadata.deletionTimestamp is set
};

// A read of one pod: `live` false when the writer has no cluster to ask (an offline extender
// that only prints its writes); else the pod, or why it could not be read (not found, no answer).
struct LivePodRead {
  bool live = false;
  std::string error;
  LivePod pod;
};

// What the extender's bind needs from the API server. Implemented over REST by
// backends/k8s/api_cluster_writer.*; unit tests use a fake. Called from the server's request
// threads, several at once (outside the state's lock): implementations are thread-safe.
class ClusterWriter {
 public:
  virtual ~ClusterWriter() = default;
  // Merge-patches the pod's metadata.annotations with `annotations` (a value of "" is still a
  // value; removal is not needed by the extender).
  virtual WriteResult patch_pod_annotations(
      const std::string& pod_namespace, const std::string& pod_name,
      const std::map<std::string, std::string>& annotations) = 0;
  // POSTs a v1 Binding (pods/{name}/binding) of the pod to `node`. `pod_uid` may be empty.
  virtual WriteResult bind_pod(const std::string& pod_namespace, const std::string& pod_name,
                               const std::string& pod_uid, const std::string& node) = 0;
  // Bind's annotation patch, applied only to the pod bind checked: the merge patch carries its
  // metadata.uid, which the API server refuses to change (422: the field is immutable), so a pod
  // recreated under the same name is not annotated; and, when `resource_version` is given (the
  // fresh read's), its metadata.resourceVersion, which makes the patch conditional on the pod
  // being unchanged since that read (409 Conflict otherwise): a pod bound by someone else in
  // between is not annotated. A writer without a cluster behind it (the offline extender's,
  // which prints) need not override it.
  virtual WriteResult annotate_pod(const std::string& pod_namespace, const std::string& pod_name,
                                   const std::string& pod_uid, const std::string& resource_version,
                                   const std::map<std::string, std::string>& annotations) {
    (void)pod_uid;
    (void)resource_version;
    return patch_pod_annotations(pod_namespace, pod_name, annotations);
  }
  // The pod as the cluster holds it now (a GET, not the watch, which may lag): bind checks it
  // before it writes anything. A writer that acts on a cluster must override it; the default is
  // a writer with no cluster (live = false), for which bind checks its own records only.
  virtual LivePodRead read_pod(const std::string& pod_namespace, const std::string& pod_name) {
    (void)pod_namespace;
    (void)pod_name;
    return {};
  }
};

// What a watch reports. Both kinds carry the full object as the API server sent it.
enum class WatchKind { Node, Pod };
enum class WatchEvent { Added, Modified, Deleted };
// Why a LIST begins: the watch's first, a re-list after the version expired (410 Gone), or after
// a broken stream or failed request.
enum class ListReason { Start, Expired, Broken };

// Implemented by the extender's state (ExtenderState); the watcher (helper extkube) calls it
// from its own threads: implementations serialize internally.
class ClusterWatchSink {
 public:
  virtual ~ClusterWatchSink() = default;
  // A LIST of `kind` begins (first start, or a re-list after the watch expired): its items
  // follow as Added events, then synced(kind).
  virtual void list_started(WatchKind kind) = 0;
  // Called just before list_started with why this LIST begins. The default ignores it; the
  // recorder writes it down, so that a reader knows which gaps are real.
  virtual void list_reason(WatchKind kind, ListReason reason) {
    (void)kind;
    (void)reason;
  }
  // One object changed (or, between list_started and synced, one listed object).
  virtual void apply(WatchKind kind, WatchEvent event, const nlohmann::json& object) = 0;
  // The LIST of `kind` has been delivered in full: objects of that kind known before
  // list_started and not delivered since are gone and are dropped. Readiness waits for the
  // first synced of both kinds.
  virtual void synced(WatchKind kind) = 0;
  // A listed item or watch event of `kind` the watcher could not read (not JSON, nested too
  // deep, over its memory limit, not an object) was skipped; `why` says what was wrong. The
  // default ignores it; the extender's state counts it with the objects it rejects itself.
  virtual void rejected(WatchKind kind, const std::string& why) {
    (void)kind;
    (void)why;
  }
};

}  // namespace slicelab::k8s
