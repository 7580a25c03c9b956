// A scenario's cluster and pods as the Kubernetes objects a real cluster would hold: v1.Node
// with GPU feature discovery's labels and allocatable resources, v1.Pod with the resource
// limits (nvidia.com/gpu, HAMi's gpumem and gpucores) that the import reads back as the same
// PodSpec. For end-to-end tests that replay a scenario through the extender.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "sim/scenario/scenario.h"

namespace slicelab::testing {

// The nodes in the simulator's node order (groups in order, "<group>-<i>" unless named).
std::vector<nlohmann::json> scenario_nodes(const Scenario& scenario);
// One pod of the workload, pending, in namespace `ns`.
nlohmann::json scenario_pod(const PodSpec& spec, const std::string& ns = "default");
// GFD's nvidia.com/gpu.product value for a catalog model ("A100-80GB" -> NVIDIA-A100-SXM4-80GB).
std::string gfd_product_of(const std::string& model);

}  // namespace slicelab::testing
