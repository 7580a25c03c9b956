// The one conversion from a pod's spec to what it asks of the cluster, shared by the simulator
// and the local backend so that both place the same pod the same way.
#pragma once

#include "sim/cluster_state.h"
#include "sim/gpu_catalog.h"
#include "sim/sharing/sharing_mode.h"
#include "workloads/pod_spec.h"

namespace slicelab {

// CPU, memory, GPU memory, GPU count and share, the claim in the sharing mode's capacity units
// and the allowed GPU models as a catalog mask (models the catalog lacks allow nothing).
// CPU-only pods claim no GPU share. shape_tag is left unset: the run assigns it.
PodRequest make_pod_request(const PodSpec& spec, const SharingMode& sharing,
                            const GpuCatalog& catalog);

}  // namespace slicelab
