// Loading a scenario's DRA files: every object read (workloads/inputs/dra_objects.h) and every CEL
// selector compiled, so that a scenario outside the supported subset fails when it is loaded.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/modes/dra/cel_selectors.h"
#include "workloads/dra_model.h"

namespace slicelab {

struct LoadedDra {
  std::shared_ptr<const DraModel> model;
  std::shared_ptr<const CelSelectorEvaluator> selectors;  // indexed by the model's DraSelectorId
};

// Reads `paths` in order into one model, checks its pools (check_dra_pools) and compiles its
// selectors. Throws InputError located at the file, line and column of the first unknown or
// unsupported field, refused pool or CEL construct.
LoadedDra load_dra_files(const std::vector<std::string>& paths);

}  // namespace slicelab
