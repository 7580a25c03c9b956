// Reads the GPU matrix that `nvidia-smi topo -m` prints (X, NV#, PIX, PXB, PHB, NODE, SYS)
// into a GpuTopology; NIC rows and columns, affinity columns and the legend are skipped.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "sim/topology/gpu_topology.h"

namespace slicelab {

// `source` names the text in error messages ("file:line:column: ..."); errors are InputError.
std::shared_ptr<const GpuTopology> parse_nvidia_smi_topo(std::string_view text,
                                                         const std::string& source);
// Reads the file; an unreadable file is an InputError naming it.
std::shared_ptr<const GpuTopology> load_nvidia_smi_topo(const std::string& path);

}  // namespace slicelab
