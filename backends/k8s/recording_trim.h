// The objects a recording keeps (docs/recording-format.md, "The trimmed objects"): only what a
// replay or a report reads, so that a pod's line is a few hundred bytes, not the tens of KiB of
// a pod with its managedFields, env, volumes and probes.
#pragma once

#include <nlohmann/json.hpp>

#include "backends/k8s/cluster_io.h"

namespace slicelab::k8s {

// The fields of the format's table, copied from `object` where present with the expected JSON
// type (an object for a map, an array for a list); everything else is dropped. Never throws for
// what `object` holds.
nlohmann::json trim_pod(const nlohmann::json& pod);
nlohmann::json trim_node(const nlohmann::json& node);
nlohmann::json trim_object(WatchKind kind, const nlohmann::json& object);

}  // namespace slicelab::k8s
