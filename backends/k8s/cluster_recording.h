// One recording of a live cluster (docs/recording-format.md): its folder opened or resumed, the
// writer, the deduplicating recorder and the list/watch connection that feeds it, as one value
// that `slicelab record` and `serve extender --shadow --record` both start and stop.
#pragma once

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>

#include "backends/k8s/api_config.h"
#include "backends/k8s/cluster_connection.h"
#include "backends/k8s/cluster_recorder.h"
#include "backends/k8s/recording_dedup.h"
#include "backends/k8s/recording_folder.h"
#include "backends/k8s/recording_resume.h"
#include "backends/k8s/recording_writer.h"

namespace slicelab::k8s {

struct ClusterRecordingOptions {
  std::string pod_namespace;  // "" for all namespaces
  std::string selector;       // the pods' label selector, "" for none
  std::string version;        // the writer's version, into the header
  RecordingWriterOptions writer;
  WatchOptions watch;  // its namespace and selector are set from the two above
};

class ClusterRecording {
 public:
  // Opens (or resumes) `dir` and writes the START line; nothing is listed before start().
  // Throws InputError for a folder it must not write into, RecordingWriteError on I/O errors.
  ClusterRecording(const std::filesystem::path& dir, ApiConfig config,
                   const ClusterRecordingOptions& options);
  ~ClusterRecording();  // stop()
  ClusterRecording(const ClusterRecording&) = delete;
  ClusterRecording& operator=(const ClusterRecording&) = delete;

  // Starts the node and pod watches. With `background_ticks`, a thread of its own calls tick()
  // every `period` (a caller with no loop of its own: the extender); else the caller must call
  // tick() at least once a second.
  void start(bool background_ticks = false,
             std::chrono::milliseconds period = std::chrono::milliseconds(250));
  // The writer's periodic work: fdatasync, rotation by age.
  void tick() { recorder_.tick(); }
  // Stops the watches (no event arrives after), then syncs and closes the recording. Idempotent.
  void stop();

  bool resumed() const { return resume_.resumed; }
  uint64_t events_read_back() const { return resume_.events; }
  size_t pods_live_at_start() const { return pods_at_start_; }
  size_t nodes_live_at_start() const { return nodes_at_start_; }
  RecorderStats stats() const { return recorder_.stats(); }
  std::string error() const { return recorder_.error(); }            // "" while recording
  std::string last_api_error() const { return link_.last_error(); }  // the watches' newest

 private:
  RecordingDedup dedup_;
  RecordingResume resume_;
  size_t pods_at_start_ = 0, nodes_at_start_ = 0;
  RecordingWriter writer_;
  ClusterRecorder recorder_;
  ClusterConnection link_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false, stopped_ = false;
  std::thread ticker_;
};

}  // namespace slicelab::k8s
