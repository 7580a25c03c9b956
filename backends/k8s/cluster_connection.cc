// ClusterConnection (cluster_connection.h).
#include "backends/k8s/cluster_connection.h"

namespace slicelab::k8s {

ClusterConnection::ClusterConnection(ApiConfig config, ClusterWatchSink& sink,
                                     const WatchOptions& options)
    : client_(std::move(config)),
      writer_(client_),
      nodes_(client_, WatchKind::Node, sink, options),
      pods_(client_, WatchKind::Pod, sink, options) {}

ClusterConnection::~ClusterConnection() {
  stop();
}

void ClusterConnection::start() {
  nodes_.start();
  pods_.start();
}

void ClusterConnection::stop() {
  // Cut every request in flight first (a LIST page, a WATCH, a bind's write), so that neither
  // watch waits for the other's read to end.
  client_.shutdown();
  pods_.stop();
  nodes_.stop();
}

std::string ClusterConnection::last_error() const {
  std::string e = pods_.last_error();
  return e.empty() ? nodes_.last_error() : e;
}

}  // namespace slicelab::k8s
