// Reads a YAML list of named entries (jobs, services): at most `limit` of them, names unique, a
// duplicate refused at its name (or its entry when the name was given by default).
#pragma once

#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "workloads/yaml_reader.h"

namespace slicelab {

// read_one(node, path, index) returns an entry whose `name` is set; `kind` is the entry's noun
// ("job"), used in "has N jobs, more than the limit of M" and "duplicate job name 'x' (also ...)".
template <class T, class ReadOne>
std::vector<T> read_named_list(const YamlReader& yaml, const YAML::Node& list,
                               std::string_view path, std::string_view kind, int64_t limit,
                               const ReadOne& read_one) {
  yaml.require_seq(list, path);
  if (list.size() > static_cast<size_t>(limit))
    yaml.fail(list, path,
              fmt::format("has {} {}s, more than the limit of {}", list.size(), kind, limit));
  std::vector<T> entries;
  entries.reserve(list.size());
  std::unordered_map<std::string, size_t> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string p = index_path(path, i);
    entries.push_back(read_one(list[i], p, i));
    auto [it, inserted] = seen.emplace(entries.back().name, i);
    if (!inserted) {
      const bool named = list[i]["name"].IsDefined();
      yaml.fail(named ? list[i]["name"] : list[i], named ? join_path(p, "name") : p,
                fmt::format("duplicate {} name '{}' (also {})", kind, entries.back().name,
                            index_path(path, it->second)));
    }
  }
  return entries;
}

}  // namespace slicelab
