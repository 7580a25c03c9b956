// Hands out one shared copy per distinct class, MIG profile or model list while a reader builds
// a workload, so that a trace of a million pods keeps a handful of strings, not a million.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
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
  // One list per distinct (models, spelling): "A|B|B" and "A|B" share no list, since FGD's
  // target workload tells them apart (ModelList::written).
  ModelList models(std::vector<std::string> value, std::string_view written = {}) {
    auto key = std::make_pair(std::move(value), std::string(written));
    auto it = models_.find(key);
    if (it == models_.end()) it = models_.emplace(key, ModelList(key.first, key.second)).first;
    return it->second;
  }

 private:
  std::map<std::string, SharedText, std::less<>> texts_;
  std::map<std::pair<std::vector<std::string>, std::string>, ModelList> models_;
};

}  // namespace slicelab
