// Decides, before a pod ever queues, whether any node of the cluster could hold it when
// empty; if none could, says why in words a user can act on.
#pragma once

#include <optional>
#include <string>

#include "sim/cluster_spec.h"
#include "sim/cluster_state.h"
#include "sim/gpu_catalog.h"

namespace slicelab {

// std::nullopt when some node could hold the pod on an idle cluster.
std::optional<std::string> never_fits_reason(const ClusterSpec& cluster, const GpuCatalog& catalog,
                                             const PodRequest& req);

}  // namespace slicelab
