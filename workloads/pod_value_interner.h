// Hands out one shared copy per distinct class, MIG profile or model list while a reader builds
// a workload, so that a trace of a million pods keeps a handful of strings, not a million.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/model_list.h"
#include "workloads/shared_text.h"

namespace slicelab {

class PodValueInterner {
 public:
  SharedText text(std::string_view value) {
    auto it = texts_.find(value);
    if (it == texts_.end()) it = texts_.emplace(std::string(value), SharedText(value)).first;
    return it->second;
  }
  ModelList models(std::vector<std::string> value) {
    auto it = models_.find(value);
    if (it == models_.end()) it = models_.emplace(value, ModelList(value)).first;
    return it->second;
  }

 private:
  std::map<std::string, SharedText, std::less<>> texts_;
  std::map<std::vector<std::string>, ModelList> models_;
};

}  // namespace slicelab
