// Keeps a ClusterWatchSink in step with the API server's nodes or pods, as client-go's
// reflector does: a paged LIST, then a WATCH from the list's resourceVersion, re-listing when
// the version has expired (410 Gone) or the stream broke, with back-off, on a thread of its own.
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

namespace slicelab::k8s {

struct WatchOptions {
  size_t page_limit = 500;  // items per LIST page (client-go's default)
  // The longest watch event line (one object and its envelope). etcd refuses objects over
  // 1.5 MiB, so a longer line is a broken or hostile stream: it is cut and the kind re-listed.
  size_t max_line_bytes = size_t{8} << 20;
  size_t max_page_bytes = size_t{256} << 20;  // one LIST page's body
  int timeout_seconds = 300;  // each WATCH request's timeoutSeconds; then it is renewed
  std::chrono::milliseconds initial_backoff{200};
  std::chrono::milliseconds max_backoff{30000};
};

struct WatchStats {
  uint64_t lists = 0;    // complete LISTs delivered (the first one and each re-list)
  uint64_t watches = 0;  // WATCH requests opened
  uint64_t events = 0;   // ADDED/MODIFIED/DELETED events delivered from streams
  uint64_t bookmarks = 0;
  uint64_t expired = 0;    // 410 Gone (as an HTTP status or an ERROR event)
  uint64_t broken = 0;     // streams that failed mid-way, oversized lines, unreadable events
  uint64_t failures = 0;   // requests that failed outright (connection refused, 5xx, 401)
  uint64_t oversized = 0;  // lines over max_line_bytes
};

class ResourceWatch {
 public:
  ResourceWatch(ApiClient& client, WatchKind kind, ClusterWatchSink& sink,
                WatchOptions options = {});
  ~ResourceWatch();
  ResourceWatch(const ResourceWatch&) = delete;
  ResourceWatch& operator=(const ResourceWatch&) = delete;

  void start();
  // Cuts the open stream and joins the thread; the sink gets no call after it returns.
  void stop();

  WatchStats stats() const;
  std::string last_error() const;
  // The collection's REST path: "/api/v1/nodes" or "/api/v1/pods".
  static std::string collection_path(WatchKind kind);

 private:
  enum class Outcome { kRenew, kRelist, kBackOff };
  void loop();
  std::string list();  // returns the list's resourceVersion
  Outcome watch(std::string& resource_version);
  void back_off(std::chrono::milliseconds d);
  void note_error(const std::string& e);

  ApiClient& client_;
  const WatchKind kind_;
  ClusterWatchSink& sink_;
  const WatchOptions options_;
  LineStream stream_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;  // guards the fields below
  std::condition_variable wake_;
  WatchStats stats_;
  std::string last_error_;
};

}  // namespace slicelab::k8s
