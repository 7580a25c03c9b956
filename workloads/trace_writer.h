// Writes pods as a native trace file (docs/scenario-format.md#trace-files), the output of
// `slicelab import`; read_trace_file reads it back into the same pods.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "workloads/pod_spec.h"

namespace slicelab {

// One flow mapping per pod; fields at their default value are left out. Numbers are written
// in their shortest exact form, so that reading the file back gives bit-identical values.
void write_trace_yaml(std::ostream& out, const std::vector<PodSpec>& pods,
                      const std::string& description);

}  // namespace slicelab
