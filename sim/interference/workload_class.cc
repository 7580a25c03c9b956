#include "sim/interference/workload_class.h"

#include <algorithm>

namespace slicelab {

void WorkloadClasses::upsert(WorkloadClass c) {
  if (auto i = index_of(c.name)) {
    classes_[*i] = std::move(c);
    return;
  }
  classes_.push_back(std::move(c));
}

std::optional<size_t> WorkloadClasses::index_of(std::string_view name) const {
  const auto it = std::find_if(classes_.begin(), classes_.end(),
                               [&](const WorkloadClass& c) { return c.name == name; });
  if (it == classes_.end()) return std::nullopt;
  return static_cast<size_t>(it - classes_.begin());
}

}  // namespace slicelab
