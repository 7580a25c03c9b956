// RecordingDedup (recording_dedup.h).
#include "backends/k8s/recording_dedup.h"

#include <fmt/format.h>

#include <algorithm>

namespace slicelab::k8s {

RecordingDedup::Entry* RecordingDedup::find(WatchKind kind, const std::string& uid) {
  Table& t = table(kind);
  const auto it = t.find(uid);
  return it == t.end() ? nullptr : &it->second;
}

RecordingDedup::Entry& RecordingDedup::put(WatchKind kind, const std::string& uid, std::string rv,
                                           std::string object, uint64_t epoch) {
  Table& t = table(kind);
  auto it = t.find(uid);
  if (it == t.end()) {
    if (t.size() >= limit(kind)) {
      throw DedupLimitError(fmt::format(
          "more than {} {} exist at once: past the recorder's limit (docs/recording-format.md, "
          "Limits); record a namespace or a --selector of them",
          limit(kind), kind == WatchKind::Pod ? "pods" : "nodes"));
    }
    it = t.emplace(uid, Entry{}).first;
  }
  it->second.rv = std::move(rv);
  it->second.object = std::move(object);
  it->second.epoch = epoch;
  return it->second;
}

void RecordingDedup::erase(WatchKind kind, const std::string& uid) {
  table(kind).erase(uid);
}

std::vector<std::pair<std::string, RecordingDedup::Entry>> RecordingDedup::take_unseen(
    WatchKind kind, uint64_t epoch) {
  Table& t = table(kind);
  std::vector<std::pair<std::string, Entry>> gone;
  for (auto it = t.begin(); it != t.end();) {
    if (it->second.epoch == epoch) {
      ++it;
      continue;
    }
    auto node = t.extract(it++);
    gone.emplace_back(std::move(node.key()), std::move(node.mapped()));
  }
  std::sort(gone.begin(), gone.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return gone;
}

}  // namespace slicelab::k8s
