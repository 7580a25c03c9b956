// ClusterRecording (cluster_recording.h): the folder, the writer, the recorder and the watches,
// built in that order and stopped in the reverse one.
#include "backends/k8s/cluster_recording.h"

#include <utility>

namespace slicelab::k8s {
namespace {

RecordingHeader cluster_recording_header(const ApiConfig& config,
                                         const ClusterRecordingOptions& options) {
  RecordingHeader header;
  header.started = recording_timestamp();
  header.server = config.server;
  header.pod_namespace = options.pod_namespace;
  header.selector = options.selector;
  header.slicelab = options.version;
  return header;
}

RecordingResume cluster_recording_open(const std::filesystem::path& dir, const ApiConfig& config,
                                       const ClusterRecordingOptions& options,
                                       RecordingDedup& dedup) {
  return open_recording_folder(dir, cluster_recording_header(config, options), dedup);
}

WatchOptions cluster_recording_watch(const ClusterRecordingOptions& options) {
  WatchOptions w = options.watch;
  w.pod_namespace = options.pod_namespace;
  w.pod_selector = options.selector;
  return w;
}

}  // namespace

ClusterRecording::ClusterRecording(const std::filesystem::path& dir, ApiConfig config,
                                   const ClusterRecordingOptions& options)
    : resume_(cluster_recording_open(dir, config, options, dedup_)),
      pods_at_start_(dedup_.size(WatchKind::Pod)),
      nodes_at_start_(dedup_.size(WatchKind::Node)),
      writer_(dir, resume_.segment, resume_.keep_bytes, resume_.next_seq, options.writer),
      recorder_(writer_, dedup_, resume_.resumed),
      link_(std::move(config), recorder_, cluster_recording_watch(options)) {}

ClusterRecording::~ClusterRecording() {
  stop();
}

void ClusterRecording::start(bool background_ticks, std::chrono::milliseconds period) {
  link_.start();
  if (!background_ticks) return;
  ticker_ = std::thread([this, period] {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      wake_.wait_for(lock, period, [this] { return stopping_; });
      if (stopping_) break;
      lock.unlock();
      recorder_.tick();
      lock.lock();
    }
  });
}

void ClusterRecording::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    stopped_ = stopping_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  link_.stop();
  recorder_.close();
}

}  // namespace slicelab::k8s
