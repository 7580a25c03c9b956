#include "sim/modes/dra/dra_files.h"

#include "workloads/inputs/dra_objects.h"

namespace slicelab {

LoadedDra load_dra_files(const std::vector<std::string>& paths) {
  DraObjects objects;
  for (const std::string& p : paths) read_dra_objects(p, objects);
  check_dra_pools(objects);  // a pool's slices may sit in several files
  LoadedDra out;
  out.selectors = std::make_shared<const CelSelectorEvaluator>(objects);
  out.model = std::make_shared<const DraModel>(std::move(objects.model));
  return out;
}

}  // namespace slicelab
