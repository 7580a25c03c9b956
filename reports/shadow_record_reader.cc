#include "reports/shadow_record_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "workloads/input_error.h"
#include "workloads/rfc3339.h"

namespace slicelab {
namespace {

// The segments named `<prefix>-NNNNNN.jsonl` in `dir`, by number.
std::vector<std::filesystem::path> recording_segments(const std::filesystem::path& dir,
                                                      const std::string& prefix) {
  std::vector<std::pair<unsigned, std::filesystem::path>> found;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix + "-") || !name.ends_with(".jsonl")) continue;
    const std::string_view digits(name.data() + prefix.size() + 1,
                                  name.size() - prefix.size() - 1 - 6);
    unsigned n = 0;
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (r.ec != std::errc() || r.ptr != digits.data() + digits.size() || digits.size() < 6)
      continue;
    found.emplace_back(n, entry.path());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::filesystem::path> out;
  out.reserve(found.size());
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

using RecordingLineHandler =
    std::function<void(const nlohmann::json& line, const std::string& where)>;

// Calls `handle` with each whole line of `file`, parsed; the torn last line is skipped. Reads in
// blocks: a line is held once, and refused as soon as it passes the limit.
void each_recording_line(const std::filesystem::path& file, const RecordingLineHandler& handle) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read", file.string()));
  std::vector<char> block(size_t{1} << 16);
  std::string line;
  size_t number = 0;
  const auto whole_line = [&] {
    ++number;
    const std::string where = fmt::format("{}:{}", file.string(), number);
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object())
      throw InputError(where + ": expected a JSON object on each line");
    handle(j, where);
    line.clear();
  };
  while (in.read(block.data(), static_cast<std::streamsize>(block.size())) || in.gcount() > 0) {
    const auto n = static_cast<size_t>(in.gcount());
    size_t from = 0;
    while (from < n) {
      const void* nl = std::memchr(block.data() + from, '\n', n - from);
      const size_t to =
          nl != nullptr ? static_cast<size_t>(static_cast<const char*>(nl) - block.data()) : n;
      if (line.size() + (to - from) > kMaxRecordingLineBytes)
        throw InputError(fmt::format("{}:{}: a line longer than {} bytes", file.string(),
                                     number + 1, kMaxRecordingLineBytes));
      line.append(block.data() + from, to - from);
      if (nl == nullptr) break;
      whole_line();
      from = to + 1;
    }
  }
  // What is left in `line` had no '\n': the end, or a torn last line.
}

double recording_time(const nlohmann::json& line, const std::string& where) {
  const auto at = line.find("at");
  if (at == line.end() || !at->is_string())
    throw InputError(where + ": expected \"at\", an RFC 3339 time");
  std::string error;
  const auto s = parse_rfc3339_seconds(at->get<std::string>(), error);
  if (!s) throw InputError(where + ": \"at\": " + error);
  return *s;
}

std::string recording_string(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double recording_number(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

void shadow_widen_window(ShadowComparisonInput& in, double t) {
  in.first_s = in.first_s ? std::min(*in.first_s, t) : t;
  in.last_s = in.last_s ? std::max(*in.last_s, t) : t;
}

}  // namespace

bool is_recording_folder(const std::filesystem::path& dir) {
  std::error_code ec;
  return std::filesystem::is_regular_file(dir / "recording.json", ec);
}

ShadowComparisonInput read_shadow_record(const std::filesystem::path& dir) {
  ShadowComparisonInput in;
  bool after_start = false;
  // One decision per pod is kept (the latest): memory follows the pods, not the lines.
  std::unordered_map<std::string, size_t> decision_of;
  for (const auto& file : recording_segments(dir, "decisions")) {
    each_recording_line(file, [&](const nlohmann::json& j, const std::string& where) {
      const std::string type = recording_string(j, "type");
      if (type != "DECISION" && type != "FIGURES" && type != "START") return;
      const double at = recording_time(j, where);
      shadow_widen_window(in, at);
      if (type == "START") {
        in.starts_s.push_back(at);
        in.policy = recording_string(j, "policy");
        after_start = true;
      } else if (type == "FIGURES") {
        in.figures.push_back({at, recording_number(j, "fragmented_gpus_actual"),
                              recording_number(j, "fragmented_gpus_slicelab"),
                              static_cast<uint64_t>(recording_number(j, "dropped")), after_start});
        after_start = false;
      } else {
        ShadowDecisionRecord d{recording_string(j, "namespace") + "/" + recording_string(j, "name"),
                               recording_string(j, "uid"), recording_string(j, "node"), at};
        const auto [it, added] =
            decision_of.try_emplace(d.uid.empty() ? d.pod : d.uid, in.decisions.size());
        if (added) {
          in.decisions.push_back(std::move(d));
        } else {
          in.decisions[it->second] = std::move(d);
        }
      }
    });
  }
  // The cluster's placements: the first spec.nodeName recorded for each pod.
  std::unordered_set<std::string> bound;
  for (const auto& file : recording_segments(dir, "events")) {
    each_recording_line(file, [&](const nlohmann::json& j, const std::string& where) {
      if (recording_string(j, "kind") != "Pod") return;
      const double at = recording_time(j, where);
      shadow_widen_window(in, at);
      const auto object = j.find("object");
      if (object == j.end() || !object->is_object()) return;
      const auto spec = object->find("spec");
      if (spec == object->end() || !spec->is_object()) return;
      const std::string node = recording_string(*spec, "nodeName");
      if (node.empty()) return;
      const auto meta = object->find("metadata");
      if (meta == object->end() || !meta->is_object()) return;
      std::string uid = recording_string(*meta, "uid");
      if (uid.empty()) uid = recording_string(j, "uid");
      const std::string pod =
          recording_string(*meta, "namespace") + "/" + recording_string(*meta, "name");
      if (!bound.insert(uid.empty() ? pod : uid).second) return;
      in.placements.push_back({pod, uid, node, at});
    });
  }
  return in;
}

}  // namespace slicelab
