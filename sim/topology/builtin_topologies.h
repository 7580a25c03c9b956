// The built-in node topologies a scenario names (nvswitch-8, hybrid-cube-mesh-8,
// pcie-dual-socket-8, nvlink-pairs-8 and their sized variants), built as GpuTopology graphs.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "sim/topology/gpu_topology.h"

namespace slicelab {

// nullptr when the name is unknown or its size is not allowed for that layout.
std::shared_ptr<const GpuTopology> builtin_topology(std::string_view name);
// For error messages: "hybrid-cube-mesh-8, nvlink-pairs-<even N>, ...".
std::string builtin_topology_names();

}  // namespace slicelab
