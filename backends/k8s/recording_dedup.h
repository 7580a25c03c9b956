// The recorder's table of the objects it believes exist: for each UID, the last resourceVersion
// it recorded and that state's trimmed object (what a GONE line carries). It is what makes a
// replay see each state once (docs/recording-format.md, "Deduplication"), and it holds live
// objects only, so its memory is bounded by the cluster's size at one moment, never by the
// recording's length: past its limits it refuses to grow (DedupLimitError).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backends/k8s/cluster_io.h"

namespace slicelab::k8s {

struct DedupLimits {
  size_t max_pods = 1'000'000;
  size_t max_nodes = 100'000;
};

// A new object would pass the kind's limit.
class DedupLimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RecordingDedup {
 public:
  struct Entry {
    std::string rv;      // the last recorded metadata.resourceVersion
    std::string object;  // that state's trimmed object, as JSON text
    uint64_t epoch = 0;  // the last LIST of its kind that held it (see take_unseen)
  };

  explicit RecordingDedup(DedupLimits limits = {}) : limits_(limits) {}

  // The last recorded state of `uid`, or nullptr when none is live.
  Entry* find(WatchKind kind, const std::string& uid);
  // Records `uid`'s new state. Throws DedupLimitError when `uid` is new and the kind is at its
  // limit (the table is then unchanged).
  Entry& put(WatchKind kind, const std::string& uid, std::string rv, std::string object,
             uint64_t epoch);
  void erase(WatchKind kind, const std::string& uid);
  size_t size(WatchKind kind) const { return table(kind).size(); }
  size_t limit(WatchKind kind) const {
    return kind == WatchKind::Pod ? limits_.max_pods : limits_.max_nodes;
  }
  // Removes and returns (uid, entry) of each object of `kind` whose epoch is not `epoch`: those a
  // LIST numbered `epoch` did not hold, gone while the watch was down. Sorted by UID, so that
  // the GONE lines of one re-list come in a stable order.
  std::vector<std::pair<std::string, Entry>> take_unseen(WatchKind kind, uint64_t epoch);

 private:
  using Table = std::unordered_map<std::string, Entry>;
  Table& table(WatchKind kind) { return kind == WatchKind::Pod ? pods_ : nodes_; }
  const Table& table(WatchKind kind) const { return kind == WatchKind::Pod ? pods_ : nodes_; }

  DedupLimits limits_;
  Table pods_, nodes_;
};

}  // namespace slicelab::k8s
