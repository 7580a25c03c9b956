// parse_recording_line (recording_line.h).
#include "backends/k8s/recording_line.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "workloads/bounded_json.h"

namespace slicelab::k8s {
namespace {

using nlohmann::json;

constexpr std::array<std::pair<std::string_view, RecordingLine::Type>, 7> kRecordingLineTypes = {{
    {"START", RecordingLine::Type::kStart},
    {"RELIST", RecordingLine::Type::kRelist},
    {"ADDED", RecordingLine::Type::kAdded},
    {"MODIFIED", RecordingLine::Type::kModified},
    {"DELETED", RecordingLine::Type::kDeleted},
    {"LISTED", RecordingLine::Type::kListed},
    {"GONE", RecordingLine::Type::kGone},
}};

std::string line_string_field(const json& line, const char* key) {
  const auto it = line.find(key);
  if (it == line.end() || !it->is_string())
    throw RecordingLineError(fmt::format("\"{}\" is missing or not a string", key));
  return it->get<std::string>();
}

}  // namespace

std::string_view recording_type_name(RecordingLine::Type type) {
  for (const auto& [name, t] : kRecordingLineTypes)
    if (t == type) return name;
  return "?";
}

RecordingLine parse_recording_line(std::string_view text) {
  if (text.size() > kMaxRecordingLineBytes)
    throw RecordingLineError(fmt::format("a line of {} bytes: longer than the format's {} MiB",
                                         text.size(), kMaxRecordingLineBytes >> 20));
  json line;
  try {
    line = parse_bounded_json(text, JsonLimits{});
  } catch (const JsonLimitError& e) {
    throw RecordingLineError(fmt::format("not JSON: {} (at byte {})", e.what(), e.offset()));
  }
  if (!line.is_object()) throw RecordingLineError("not a JSON object");
  RecordingLine r;
  const auto seq = line.find("seq");
  if (seq == line.end() || !seq->is_number_unsigned() || seq->get<uint64_t>() == 0)
    throw RecordingLineError("\"seq\" is missing or not a positive integer");
  r.seq = seq->get<uint64_t>();
  const std::string type = line_string_field(line, "type");
  bool known = false;
  for (const auto& [name, t] : kRecordingLineTypes) {
    if (name == type) {
      r.type = t;
      known = true;
    }
  }
  if (!known) throw RecordingLineError(fmt::format("unknown type \"{}\"", type.substr(0, 64)));
  if (r.type == RecordingLine::Type::kStart) return r;
  const std::string kind = line_string_field(line, "kind");
  if (kind == "Pod") {
    r.kind = WatchKind::Pod;
  } else if (kind == "Node") {
    r.kind = WatchKind::Node;
  } else {
    throw RecordingLineError(fmt::format("unknown kind \"{}\"", kind.substr(0, 64)));
  }
  if (r.type == RecordingLine::Type::kRelist) return r;
  r.uid = line_string_field(line, "uid");
  r.rv = line_string_field(line, "rv");
  if (r.uid.empty()) throw RecordingLineError("\"uid\" is empty");
  const auto object = line.find("object");
  if (object == line.end() || !object->is_object())
    throw RecordingLineError("\"object\" is missing or not an object");
  r.object = std::move(*object);
  return r;
}

}  // namespace slicelab::k8s
