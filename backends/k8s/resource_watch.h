// Keeps a ClusterWatchSink in step with the API server's nodes or pods, as client-go's
// reflector does: a paged LIST, then a WATCH from the list's resourceVersion, re-listing when
// the version has expired (410 Gone) or the stream broke, with the reflector's back-off, on a
// thread of its own. Pages and events are read with their depth and memory bounded; an item or
// event that cannot be read is skipped and counted, and the watch goes on.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "backends/k8s/api_client.h"
#include "backends/k8s/cluster_io.h"
#include "backends/k8s/relist_backoff.h"

namespace slicelab::k8s {

struct WatchOptions {
  size_t page_limit = 500;  // items per LIST page (client-go's default)
  // The longest watch event line (one object and its envelope). etcd refuses objects over
  // 1.5 MiB, so a longer line is a broken or hostile stream: it is cut and the kind re-listed.
  size_t max_line_bytes = size_t{8} << 20;
  // One LIST page's body. A page is read whole, then parsed one item at a time: it takes its
  // text plus one item's parsed form (at most max_object_bytes). A page over this is refused
  // and the next LIST asks for half as many items per page.
  size_t max_page_bytes = size_t{64} << 20;
  // One object's parsed form (a listed item, an event), the estimate of bounded_json.h: a real
  // object of 1.5 MiB takes about a tenth of it. An object over it is skipped and counted.
  size_t max_object_bytes = size_t{32} << 20;
  // Each LIST page must arrive whole within this (a server that trickles it is cut here).
  std::chrono::milliseconds page_timeout{60000};
  int timeout_seconds = 300;  // each WATCH request's timeoutSeconds; then it is renewed
  // A WATCH is cut this long after its timeoutSeconds if the server has not ended it.
  std::chrono::milliseconds watch_grace{30000};
  // Pauses before a re-list (client-go's reflector: 800 ms doubling to 30 s, jittered, reset
  // after 2 minutes); tests shorten them.
  std::chrono::milliseconds initial_backoff{800};
  std::chrono::milliseconds max_backoff{30000};
  std::chrono::milliseconds backoff_reset{120000};
  double backoff_jitter = 1.0;
  // Pods only (nodes are cluster-wide and listed whole): the namespace to list and watch ("" for
  // all) and a label selector given to LIST and WATCH as labelSelector ("" for none).
  std::string pod_namespace;
  std::string pod_selector;
};

struct WatchStats {
  uint64_t lists = 0;    // complete LISTs delivered (the first one and each re-list)
  uint64_t watches = 0;  // WATCH requests opened
  uint64_t events = 0;   // ADDED/MODIFIED/DELETED events delivered from streams
  uint64_t bookmarks = 0;
  uint64_t expired = 0;    // 410 Gone (as an HTTP status or an ERROR event)
  uint64_t broken = 0;     // streams that failed mid-way, oversized lines, ERROR events
  uint64_t failures = 0;   // requests that failed outright (connection refused, 5xx, 401)
  uint64_t oversized = 0;  // lines over max_line_bytes
  uint64_t rejected = 0;   // items and events skipped: not JSON, too deep, too large, wrong shape
  uint64_t short_watches = 0;  // watches the server ended within a second with no event
};

class ResourceWatch {
 public:
  ResourceWatch(ApiClient& client, WatchKind kind, ClusterWatchSink& sink,
                const WatchOptions& options = {});
  ~ResourceWatch();
  ResourceWatch(const ResourceWatch&) = delete;
  ResourceWatch& operator=(const ResourceWatch&) = delete;

  void start();
  // Cuts the open stream and joins the thread; the sink gets no call after it returns.
  void stop();

  WatchStats stats() const;
  std::string last_error() const;
  // The collection's REST path: "/api/v1/nodes" or "/api/v1/pods", or
  // "/api/v1/namespaces/NS/pods" for pods of one namespace.
  static std::string collection_path(WatchKind kind, const std::string& pod_namespace = "");

 private:
  enum class Outcome { kRenew, kRelist };
  void loop();
  std::string list(ListReason reason);  // returns the list's resourceVersion
  std::string path() const;             // this watch's collection
  std::string selector_query() const;   // "&labelSelector=..." or ""
  Outcome watch(std::string& resource_version);
  void back_off(std::chrono::milliseconds d);
  void note_error(const std::string& e);
  void reject(const std::string& why);

  ApiClient& client_;
  const WatchKind kind_;
  ClusterWatchSink& sink_;
  const WatchOptions options_;
  LineStream stream_;
  size_t page_limit_;  // halved when a page passes max_page_bytes
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;  // guards the fields below
  std::condition_variable wake_;
  WatchStats stats_;
  std::string last_error_;
};

}  // namespace slicelab::k8s
