// ClusterRecorder (cluster_recorder.h).
#include "backends/k8s/cluster_recorder.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "backends/k8s/recording_folder.h"
#include "backends/k8s/recording_line.h"
#include "backends/k8s/recording_trim.h"

namespace slicelab::k8s {
namespace {

using nlohmann::json;

std::string_view recorder_kind_name(WatchKind kind) {
  return kind == WatchKind::Pod ? "Pod" : "Node";
}

std::string recorder_meta_string(const json& object, const char* key) {
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return "";
  const auto v = meta->find(key);
  return v != meta->end() && v->is_string() ? v->get<std::string>() : "";
}

// An object whose line would pass the format's limit keeps only its identity.
json recorder_identity(const json& trimmed) {
  json meta = json::object();
  if (const auto m = trimmed.find("metadata"); m != trimmed.end() && m->is_object()) {
    for (const char* key : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"})
      if (const auto v = m->find(key); v != m->end()) meta[key] = *v;
  }
  return json{{"metadata", std::move(meta)}};
}

}  // namespace

ClusterRecorder::ClusterRecorder(RecordingWriter& writer, RecordingDedup& dedup, bool resumed)
    : writer_(writer), dedup_(dedup) {
  std::lock_guard lock(mutex_);
  writer_.append(
      fmt::format(R"("at":"{}","type":"START","resumed":{})", recording_timestamp(), resumed));
  ++stats_.lines;
}

void ClusterRecorder::stop_locked(const std::string& why) {
  if (stopped_) return;
  stopped_ = true;
  error_ = why;
  try {
    writer_.close();
  } catch (const RecordingWriteError&) {  // NOLINT(bugprone-empty-catch): the first error is kept
  }
}

void ClusterRecorder::write_locked(const std::string& fields) {
  try {
    writer_.append(fields);
    ++stats_.lines;
  } catch (const RecordingWriteError& e) {
    stop_locked(e.what());
  }
}

void ClusterRecorder::write_event(WatchKind kind, std::string_view type, const std::string& uid,
                                  const std::string& rv, const std::string& object_text) {
  fields_.clear();
  // The members in the format's order, the object last (nlohmann's objects sort their keys).
  fmt::format_to(std::back_inserter(fields_),
                 R"("at":"{}","kind":"{}","type":"{}","uid":{},"rv":{},"object":)",
                 recording_timestamp(), recorder_kind_name(kind), type, json(uid).dump(),
                 json(rv).dump());
  fields_.append(object_text);
  write_locked(fields_);
  if (!stopped_) ++stats_.events;
}

void ClusterRecorder::list_reason(WatchKind kind, ListReason reason) {
  std::lock_guard lock(mutex_);
  reason_[index(kind)] = reason;
}

void ClusterRecorder::list_started(WatchKind kind) {
  std::lock_guard lock(mutex_);
  if (stopped_) return;
  const size_t i = index(kind);
  ++epoch_[i];
  listing_[i] = true;
  const char* reason = reason_[i] == ListReason::Start     ? "start"
                       : reason_[i] == ListReason::Expired ? "410"
                                                           : "broken";
  write_locked(fmt::format(R"("at":"{}","type":"RELIST","kind":"{}","reason":"{}")",
                           recording_timestamp(), recorder_kind_name(kind), reason));
}

void ClusterRecorder::apply(WatchKind kind, WatchEvent event, const json& object) {
  const std::string uid = recorder_meta_string(object, "uid");
  const std::string rv = recorder_meta_string(object, "resourceVersion");
  std::lock_guard lock(mutex_);
  if (stopped_) return;
  if (uid.empty()) {
    ++stats_.rejected;
    return;
  }
  const size_t i = index(kind);
  RecordingDedup::Entry* last = dedup_.find(kind, uid);
  if (event != WatchEvent::Deleted && last != nullptr && last->rv == rv) {
    // This state is recorded: a re-list, a restart's LIST, a watch that replays its start.
    if (listing_[i]) last->epoch = epoch_[i];
    ++stats_.duplicates;
    return;
  }
  std::string text = trim_object(kind, object).dump();
  if (text.size() + 1024 > kMaxRecordingLineBytes)
    text = recorder_identity(trim_object(kind, object)).dump();
  std::string_view type = "MODIFIED";
  if (event == WatchEvent::Deleted) {
    type = "DELETED";
  } else if (listing_[i]) {
    type = "LISTED";
  } else if (event == WatchEvent::Added) {
    type = "ADDED";
  }
  if (event != WatchEvent::Deleted) {
    try {
      dedup_.put(kind, uid, rv, text, epoch_[i]);
    } catch (const DedupLimitError& e) {
      stop_locked(e.what());
      return;
    }
  }
  write_event(kind, type, uid, rv, text);
  if (event == WatchEvent::Deleted) dedup_.erase(kind, uid);
}

void ClusterRecorder::synced(WatchKind kind) {
  std::lock_guard lock(mutex_);
  if (stopped_) return;
  const size_t i = index(kind);
  listing_[i] = false;
  // What the table held that this LIST did not: deleted while no watch was looking.
  for (auto& [uid, entry] : dedup_.take_unseen(kind, epoch_[i])) {
    write_event(kind, "GONE", uid, entry.rv, entry.object);
    if (stopped_) return;
  }
}

void ClusterRecorder::rejected(WatchKind /*kind*/, const std::string& /*why*/) {
  std::lock_guard lock(mutex_);
  ++stats_.rejected;
}

void ClusterRecorder::tick() {
  std::lock_guard lock(mutex_);
  if (stopped_) return;
  try {
    writer_.tick();
  } catch (const RecordingWriteError& e) {
    stop_locked(e.what());
  }
}

void ClusterRecorder::close() {
  std::lock_guard lock(mutex_);
  if (stopped_) return;
  stopped_ = true;
  try {
    writer_.close();
  } catch (const RecordingWriteError& e) {
    error_ = e.what();
  }
}

RecorderStats ClusterRecorder::stats() const {
  std::lock_guard lock(mutex_);
  RecorderStats s = stats_;
  s.pods = dedup_.size(WatchKind::Pod);
  s.nodes = dedup_.size(WatchKind::Node);
  s.segment = writer_.segment();
  return s;
}

std::string ClusterRecorder::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

}  // namespace slicelab::k8s
