#include "workloads/kube/kube_recording.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <unordered_map>

#include "workloads/bounded_json.h"
#include "workloads/input_error.h"
#include "workloads/kube/kube_json_objects.h"
#include "workloads/rfc3339.h"
#include "workloads/text_file.h"

namespace slicelab {
namespace {

constexpr std::string_view kRecordingFormat = "slicelab-recording/1";

// The segments, "events-<digits>.jsonl", in name order (the recorder zero-pads the numbers).
std::vector<std::filesystem::path> recording_segments(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("events-") || !name.ends_with(".jsonl")) continue;
    const std::string digits = name.substr(7, name.size() - 7 - 6);
    if (digits.empty() ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    if (out.size() >= kMaxRecordingSegments)
      throw InputError(fmt::format("{}: more than {} segments (events-*.jsonl)", dir.string(),
                                   kMaxRecordingSegments));
    out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// One line of a segment, at most kMaxRecordingLineBytes; false at the end of the file.
// `terminated` tells whether it ended with '\n' (a last line without it is a torn write).
bool recording_next_line(std::streambuf& in, std::string& line, bool& terminated,
                         const std::string& where) {
  line.clear();
  for (;;) {
    const int c = in.sbumpc();
    if (c == std::char_traits<char>::eof()) {
      terminated = false;
      return !line.empty();
    }
    if (c == '\n') {
      terminated = true;
      return true;
    }
    if (line.size() >= kMaxRecordingLineBytes)
      throw InputError(fmt::format("{}: a line longer than the {} MiB an event line may hold",
                                   where, kMaxRecordingLineBytes >> 20));
    line.push_back(static_cast<char>(c));
  }
}

const nlohmann::json& recording_field(const nlohmann::json& event, const char* key,
                                      nlohmann::json::value_t type, const std::string& where) {
  const auto it = event.find(key);
  if (it == event.end()) throw InputError(fmt::format("{}: the event has no '{}'", where, key));
  const bool ok = it->type() == type || (type == nlohmann::json::value_t::number_unsigned &&
                                         it->type() == nlohmann::json::value_t::number_integer);
  if (!ok) throw InputError(fmt::format("{}: '{}' has the wrong type", where, key));
  return *it;
}

std::string recording_string(const nlohmann::json& event, const char* key,
                             const std::string& where) {
  return recording_field(event, key, nlohmann::json::value_t::string, where).get<std::string>();
}

double recording_time(const nlohmann::json& event, const char* key, const std::string& where) {
  std::string error;
  const auto t = parse_rfc3339_seconds(recording_string(event, key, where), error);
  if (!t) throw InputError(fmt::format("{}: '{}': {}", where, key, error));
  return *t;
}

// What the reader keeps of a pod beyond its last state: where it was first bound, and when it
// ended if the last state does not tell.
struct RecordingPodLife {
  size_t index = 0;                  // into KubeRecording::objects.pods
  std::string rv;                    // the last resourceVersion read
  std::string node;                  // the first spec.nodeName recorded
  std::optional<double> done_at;     // the first event showing Succeeded or Failed
  std::optional<double> deleted_at;  // DELETED or GONE
};

struct RecordingNodeSeen {
  size_t index = 0;  // into KubeRecording::objects.nodes
  std::string rv;
};

class RecordingFolder {
 public:
  explicit RecordingFolder(KubeRecording& out) : out_(out) {}

  void read_segment(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InputError(fmt::format("{}: cannot be read", file.string()));
    std::string line;
    bool terminated = false;
    for (size_t n = 1;; ++n) {
      const std::string where = fmt::format("{}:{}", file.string(), n);
      if (!recording_next_line(*in.rdbuf(), line, terminated, where)) break;
      if (!terminated) {
        ++out_.torn_lines;
        out_.warnings.push_back(
            fmt::format("{}: the last line has no '\\n' (a torn write): ignored", where));
        break;
      }
      read_event(line, where);
    }
  }

  void finish() {
    for (auto& [uid, life] : pods_) {
      KubePod& p = out_.objects.pods[life.index];
      if (!life.node.empty()) p.node_name = life.node;
      const bool done = p.phase == "Succeeded" || p.phase == "Failed";
      if (done && p.finished_s) continue;
      p.finished_s = done && life.done_at ? life.done_at : life.deleted_at;
    }
    if (!started_) out_.ended_s = out_.started_s;
  }

 private:
  void read_event(const std::string& line, const std::string& where) {
    nlohmann::json event;
    try {
      event = parse_bounded_json(line, JsonLimits{.max_depth = kKubeMaxObjectDepth});
    } catch (const JsonLimitError& e) {
      throw InputError(fmt::format("{}: not a JSON event: {}", where, e.what()));
    }
    if (!event.is_object()) throw InputError(fmt::format("{}: not a JSON object", where));
    const auto seq = recording_field(event, "seq", nlohmann::json::value_t::number_unsigned, where)
                         .get<int64_t>();
    const double at = recording_time(event, "at", where);
    if (seq <= last_seq_)
      throw InputError(
          fmt::format("{}: seq {} after {}: the events are out of order", where, seq, last_seq_));
    if (seq != last_seq_ + 1) {
      out_.missing_events += static_cast<size_t>(seq - last_seq_ - 1);
      out_.warnings.push_back(fmt::format("{}: seq {} follows {}: {} event(s) missing", where, seq,
                                          last_seq_, seq - last_seq_ - 1));
    }
    last_seq_ = seq;
    out_.ended_s = started_ ? std::max(out_.ended_s, at) : at;
    const std::string type = recording_string(event, "type", where);
    if (type == "START") {
      if (!started_) out_.started_s = at;
      const auto resumed = event.find("resumed");
      if (resumed != event.end() && resumed->is_boolean() && resumed->get<bool>()) ++out_.restarts;
      started_ = true;
      return;
    }
    started_ = true;
    if (type == "RELIST") return;
    if (type != "ADDED" && type != "MODIFIED" && type != "DELETED" && type != "LISTED" &&
        type != "GONE")
      throw InputError(fmt::format(
          "{}: type '{}': expected ADDED, MODIFIED, DELETED, LISTED, GONE, START or RELIST", where,
          type));
    const std::string kind = recording_string(event, "kind", where);
    const std::string uid = recording_string(event, "uid", where);
    const std::string rv = recording_string(event, "rv", where);
    const auto object = event.find("object");
    if (object == event.end() || !object->is_object())
      throw InputError(fmt::format("{}: the event has no 'object'", where));
    const bool gone = type == "DELETED" || type == "GONE";
    ++out_.events;
    if (kind == "Pod") {
      read_pod(*object, uid, rv, gone, at, where);
    } else if (kind == "Node") {
      read_node(*object, rv, type, where);
    } else {
      throw InputError(fmt::format("{}: kind '{}': expected Pod or Node", where, kind));
    }
  }

  void read_pod(const nlohmann::json& object, const std::string& uid, const std::string& rv,
                bool gone, double at, const std::string& where) {
    auto it = pods_.find(uid);
    if (it != pods_.end() && it->second.rv == rv && !gone) {
      ++out_.duplicates;
      return;
    }
    KubePod pod = kube_pod_from_json(object, where);
    if (it == pods_.end()) {
      if (pods_.size() >= kMaxRecordingPods)
        throw InputError(
            fmt::format("{}: more than {} pods in the recording", where, kMaxRecordingPods));
      RecordingPodLife fresh;
      fresh.index = out_.objects.pods.size();
      it = pods_.emplace(uid, std::move(fresh)).first;
      out_.objects.pods.push_back(pod);
    }
    RecordingPodLife& life = it->second;
    life.rv = rv;
    if (life.node.empty()) life.node = pod.node_name;
    if (!life.done_at && (pod.phase == "Succeeded" || pod.phase == "Failed")) life.done_at = at;
    if (gone && !life.deleted_at) life.deleted_at = at;
    out_.objects.pods[life.index] = std::move(pod);
  }

  void read_node(const nlohmann::json& object, const std::string& rv, const std::string& type,
                 const std::string& where) {
    KubeNode node = kube_node_from_json(object, where);
    auto it = nodes_.find(node.name);
    if (type == "DELETED" || type == "GONE") {
      ++out_.nodes_left;
    } else if (it != nodes_.end() && it->second.rv == rv) {
      ++out_.duplicates;
      return;
    }
    if (it == nodes_.end() && type == "ADDED") ++out_.nodes_joined;
    if (it == nodes_.end()) {
      if (nodes_.size() >= kMaxRecordingNodes)
        throw InputError(
            fmt::format("{}: more than {} nodes in the recording", where, kMaxRecordingNodes));
      RecordingNodeSeen fresh;
      fresh.index = out_.objects.nodes.size();
      it = nodes_.emplace(node.name, std::move(fresh)).first;
      out_.objects.nodes.push_back(node);
    }
    it->second.rv = rv;
    out_.objects.nodes[it->second.index] = std::move(node);
  }

  KubeRecording& out_;
  int64_t last_seq_ = 0;
  bool started_ = false;  // an event was read (ended_s holds its time)
  std::unordered_map<std::string, RecordingPodLife> pods_;
  std::unordered_map<std::string, RecordingNodeSeen> nodes_;
};

}  // namespace

KubeRecording read_kube_recording(const std::string& dir) try {
  const std::filesystem::path folder(dir);
  const std::filesystem::path header_path = folder / "recording.json";
  if (!std::filesystem::is_regular_file(header_path))
    throw InputError(fmt::format(
        "{}: not a recording: it has no recording.json (docs/recording-format.md)", dir));
  const std::string text = read_text_file(header_path.string(), kMaxRecordingHeaderBytes);
  nlohmann::json header;
  try {
    header = parse_bounded_json(text, JsonLimits{.max_depth = 8});
  } catch (const JsonLimitError& e) {
    throw InputError(fmt::format("{}: not JSON: {}", header_path.string(), e.what()));
  }
  const std::string where = header_path.string();
  if (!header.is_object() || !header.contains("format") || header["format"] != kRecordingFormat)
    throw InputError(fmt::format("{}: 'format' is not \"{}\" (docs/recording-format.md)", where,
                                 kRecordingFormat));
  KubeRecording out;
  out.started_s = recording_time(header, "started", where);
  RecordingFolder reader(out);
  const auto segments = recording_segments(folder);
  for (const auto& s : segments) reader.read_segment(s);
  out.segments = segments.size();
  reader.finish();
  return out;
} catch (const std::filesystem::filesystem_error& e) {
  throw InputError(filesystem_error_message(e));
}

}  // namespace slicelab
