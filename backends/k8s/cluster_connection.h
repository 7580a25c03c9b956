// One extender's link to its API server: the REST client, the ClusterWriter its bind uses, and
// the node and pod watches that keep a ClusterWatchSink (the extender's state) current.
#pragma once

#include <memory>

#include "backends/k8s/api_client.h"
#include "backends/k8s/api_cluster_writer.h"
#include "backends/k8s/api_config.h"
#include "backends/k8s/cluster_io.h"
#include "backends/k8s/resource_watch.h"

namespace slicelab::k8s {

class ClusterConnection {
 public:
  // Nothing is sent until start(). `sink` must outlive the connection.
  ClusterConnection(ApiConfig config, ClusterWatchSink& sink, const WatchOptions& options = {});
  ~ClusterConnection();  // stops the watches
  ClusterConnection(const ClusterConnection&) = delete;
  ClusterConnection& operator=(const ClusterConnection&) = delete;

  // Starts both watches (each LISTs, then WATCHes on its own thread); the sink reports
  // readiness once both have synced.
  void start();
  // Cuts every request in flight (LISTs, WATCHes, bind's writes) and joins the watches, within
  // milliseconds. Final: the client refuses every later request.
  void stop();

  ClusterWriter& writer() { return writer_; }
  ApiClient& client() { return client_; }
  WatchStats node_stats() const { return nodes_.stats(); }
  WatchStats pod_stats() const { return pods_.stats(); }
  // The newest error of either watch ("" when none), for logs and /readyz.
  std::string last_error() const;

 private:
  ApiClient client_;
  ApiClusterWriter writer_;
  ResourceWatch nodes_, pods_;
};

}  // namespace slicelab::k8s
