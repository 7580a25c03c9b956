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

// What the extender's bind needs from the API server. Implemented over REST by
// backends/k8s/api_client.* (helper extkube); unit tests use a fake. Called from the server's
// request threads, several at once (outside the state's lock): implementations are thread-safe.
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
};

// What a watch reports. Both kinds carry the full object as the API server sent it.
enum class WatchKind { Node, Pod };
enum class WatchEvent { Added, Modified, Deleted };

// Implemented by the extender's state (ExtenderState); the watcher (helper extkube) calls it
// from its own threads: implementations serialize internally.
class ClusterWatchSink {
 public:
  virtual ~ClusterWatchSink() = default;
  // A LIST of `kind` begins (first start, or a re-list after the watch expired): its items
  // follow as Added events, then synced(kind).
  virtual void list_started(WatchKind kind) = 0;
  // One object changed (or, between list_started and synced, one listed object).
  virtual void apply(WatchKind kind, WatchEvent event, const nlohmann::json& object) = 0;
  // The LIST of `kind` has been delivered in full: objects of that kind known before
  // list_started and not delivered since are gone and are dropped. Readiness waits for the
  // first synced of both kinds.
  virtual void synced(WatchKind kind) = 0;
};

}  // namespace slicelab::k8s
