// What the run_policies tests share: a shipped scenario's path and the indexes of all its
// policies (header-only, so that the TSan concurrency suite needs no reports library).
#pragma once

#include <string>
#include <vector>

#include "sim/scenario/scenario.h"

namespace slicelab::testing {

inline std::string scenario_path(const char* name) {
  return std::string(SLICELAB_SOURCE_DIR) + "/scenarios/" + name;
}

inline std::vector<size_t> all_policies(const Scenario& sc) {
  std::vector<size_t> v(sc.policies.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

}  // namespace slicelab::testing
