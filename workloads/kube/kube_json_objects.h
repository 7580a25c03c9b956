// Node and Pod objects of a JSON body (a watch event, an extender request) read with the same
// rules as `slicelab import kubernetes` reads files (kube_objects.h).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <string>

#include "workloads/kube/kube_objects.h"

namespace slicelab {

// The deepest nesting read (an object's own levels). JSON from the network is parsed with its depth
// bounded at the same limit, so the conversion's recursion never goes deeper.
inline constexpr int kKubeMaxObjectDepth = 64;

// Throw InputError naming `source` and the field when the object is not a valid Node / Pod.
KubeNode kube_node_from_json(const nlohmann::json& object, const std::string& source);
KubePod kube_pod_from_json(const nlohmann::json& object, const std::string& source);

}  // namespace slicelab
