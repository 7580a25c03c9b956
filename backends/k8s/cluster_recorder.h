// The recorder: a ClusterWatchSink that writes what the node and pod watches report into a
// recording (docs/recording-format.md): a START line when it begins, a RELIST line before each
// LIST, LISTED lines for listed objects, the watch's ADDED/MODIFIED/DELETED, and GONE for each
// object a LIST no longer holds, each state of each object once (RecordingDedup). Both watches
// call it from their own threads: it serializes them. An error it cannot recover from (a write
// that failed, a limit passed) stops the recording: error() says why, and later events are
// dropped, so that the recording ends cleanly at its last complete line.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <mutex>
#include <string>

#include "backends/k8s/cluster_io.h"
#include "backends/k8s/recording_dedup.h"
#include "backends/k8s/recording_writer.h"

namespace slicelab::k8s {

struct RecorderStats {
  uint64_t lines = 0;          // lines written by this process (START, RELIST and events)
  uint64_t events = 0;         // of them, object events (ADDED ... GONE)
  uint64_t duplicates = 0;     // events not written: their state was already recorded
  uint64_t rejected = 0;       // objects without a uid, and items the watch could not read
  size_t pods = 0, nodes = 0;  // objects tracked (live)
  uint32_t segment = 0;        // the segment being written
};

class ClusterRecorder final : public ClusterWatchSink {
 public:
  // Writes the START line (`resumed` as the folder said). `writer` and `dedup` (rebuilt from
  // the segments on a resume) outlive the recorder. Throws RecordingWriteError.
  ClusterRecorder(RecordingWriter& writer, RecordingDedup& dedup, bool resumed);

  void list_reason(WatchKind kind, ListReason reason) override;
  void list_started(WatchKind kind) override;
  void apply(WatchKind kind, WatchEvent event, const nlohmann::json& object) override;
  void synced(WatchKind kind) override;
  void rejected(WatchKind kind, const std::string& why) override;

  // The writer's periodic work (fdatasync, rotation by age): call it at least once a second.
  void tick();
  // Syncs and closes the recording; later events are dropped.
  void close();
  RecorderStats stats() const;
  // "" while recording; else why the recording stopped.
  std::string error() const;

 private:
  void write_event(WatchKind kind, std::string_view type, const std::string& uid,
                   const std::string& rv, const std::string& object_text);
  void write_locked(const std::string& fields);
  void stop_locked(const std::string& why);
  static size_t index(WatchKind kind) { return kind == WatchKind::Pod ? 0 : 1; }

  RecordingWriter& writer_;
  RecordingDedup& dedup_;
  mutable std::mutex mutex_;            // guards everything below and the writer and table
  std::array<uint64_t, 2> epoch_{};     // the current LIST of each kind
  std::array<bool, 2> listing_{};       // between list_started and synced
  std::array<ListReason, 2> reason_{};  // of the LIST about to start
  RecorderStats stats_;
  std::string error_;
  bool stopped_ = false;
  std::string fields_;  // reused: the line being built
};

}  // namespace slicelab::k8s
