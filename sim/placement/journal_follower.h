// Follows ClusterState's change journal for an index kept in step with the cluster: the nodes
// that changed since the index last looked, or word that it must rebuild from the nodes' state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "sim/cluster_state.h"

namespace slicelab {

// Contract: sync() calls exactly one of `rebuild()` (the index follows another cluster, or one
// of another size; the journal no longer holds all it missed; or more than `replay_limit`
// changes wait, which cost more to replay than a rebuild) and `changed(nodes)` (the nodes bound
// or unbound since the last sync, in order, repeats included; possibly none). Either way the
// follower is then up to date with the cluster.
class JournalFollower {
 public:
  // Forgets the cluster: the next sync() rebuilds.
  void reset() { cluster_ = nullptr; }

  template <typename Rebuild, typename Changed>
  void sync(const ClusterState& cluster, size_t replay_limit, Rebuild&& rebuild,
            Changed&& changed) {
    const auto missed = cluster_ == &cluster && nodes_ == cluster.node_count()
                            ? cluster.changed_since(seen_)
                            : std::nullopt;
    cluster_ = &cluster;
    nodes_ = cluster.node_count();
    seen_ = cluster.changes();
    if (!missed.has_value() || missed->size() > replay_limit) {
      rebuild();
      return;
    }
    changed(std::span<const NodeId>(*missed));
  }

 private:
  const ClusterState* cluster_ = nullptr;
  size_t nodes_ = 0;
  uint64_t seen_ = 0;  // the cluster's changes() at the last sync
};

}  // namespace slicelab
