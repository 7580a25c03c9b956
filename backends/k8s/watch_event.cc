// read_watch_line (watch_event.h).
#include "backends/k8s/watch_event.h"

#include <fmt/format.h>

#include <algorithm>

#include "workloads/bounded_json.h"

namespace slicelab::k8s {
namespace {

std::string resource_version_of(const nlohmann::json& object) {
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return "";
  const auto rv = meta->find("resourceVersion");
  return rv != meta->end() && rv->is_string() ? rv->get<std::string>() : "";
}

WatchLine skipped(std::string why) {
  WatchLine w;
  w.kind = WatchLine::Kind::kSkipped;
  w.message = std::move(why);
  return w;
}

}  // namespace

WatchLine read_watch_line(std::string_view line, size_t max_object_bytes) {
  JsonLimits bounds;  // depth 64, as every object read from the network
  bounds.max_document_bytes = std::min(max_object_bytes, (line.size() + 1) * kDefaultMemoryFactor);
  nlohmann::json ev;
  try {
    ev = parse_bounded_json(line, bounds);
  } catch (const JsonLimitError& e) {
    return skipped(
        fmt::format("an event that cannot be read: {} (at byte {})", e.what(), e.offset()));
  }
  const auto type_it = ev.is_object() ? ev.find("type") : ev.end();
  const auto object_it = ev.is_object() ? ev.find("object") : ev.end();
  if (!ev.is_object() || type_it == ev.end() || !type_it->is_string() || object_it == ev.end() ||
      !object_it->is_object()) {
    return skipped("an event without a type and an object: " + std::string(line.substr(0, 200)));
  }
  const std::string& type = type_it->get_ref<const std::string&>();
  WatchLine w;
  if (type == "ERROR") {
    w.kind = WatchLine::Kind::kError;
    const auto code = object_it->find("code");
    if (code != object_it->end() && code->is_number_integer()) w.code = code->get<int64_t>();
    const auto message = object_it->find("message");
    w.message = message != object_it->end() && message->is_string() ? message->get<std::string>()
                                                                    : "ERROR event";
    return w;
  }
  w.resource_version = resource_version_of(*object_it);
  if (type == "BOOKMARK") {
    w.kind = WatchLine::Kind::kBookmark;
    return w;
  }
  if (type == "ADDED") {
    w.event = WatchEvent::Added;
  } else if (type == "MODIFIED") {
    w.event = WatchEvent::Modified;
  } else if (type == "DELETED") {
    w.event = WatchEvent::Deleted;
  } else {  // as the reflector: an event it does not understand is skipped
    return skipped("an event of unknown type " + type.substr(0, 64));
  }
  w.kind = WatchLine::Kind::kObject;
  w.object = std::move(*object_it);
  return w;
}

}  // namespace slicelab::k8s
