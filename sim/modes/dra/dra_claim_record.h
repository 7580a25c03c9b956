// One claim's allocation in a run, as `slicelab run` writes it to claims.json: which pod
// reserved it, where and when, and its status.allocation.
#pragma once

#include <string>

#include "workloads/dra_model.h"

namespace slicelab {

struct DraClaimRecord {
  std::string pod;
  std::string namespace_name;
  std::string claim;
  std::string node;
  double allocated_s = 0;
  DraAllocationResult allocation;
};

}  // namespace slicelab
