// Plain figures the extender's cluster state hands to /metrics: what is allocated on each node's
// GPUs, and shadow mode's running comparison of the scheduler's decisions with slicelab's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace slicelab::k8s {

// One GPU as HAMi's scheduler reports it (cmd/scheduler/metrics.go), in HAMi's units.
struct GpuDeviceAllocation {
  int index = 0;     // the GPU's index on its node (device_index)
  std::string uuid;  // "GPU-…" when the node publishes it; empty when unknown
  std::string type;  // the GPU model (device_type), e.g. "NVIDIA-A100-SXM4-80GB"
  int64_t memory_allocated_bytes = 0;
  int64_t memory_total_bytes = 0;
  double cores_allocated = 0;  // percent of the GPU's compute allocated, 0..100 (HAMi's unit)
  int cores_total = 100;       // percent units: 100 for a whole card
  int shared_count = 0;        // pods holding a share of this GPU
};

struct NodeGpuAllocation {
  std::string node;
  std::vector<GpuDeviceAllocation> gpus;
};

// One bound pod's share of one GPU (HAMi reports it per container; a pod's GPUs are counted on
// its first container, index 0, as the extender sees pods, not containers).
struct PodGpuShare {
  std::string pod_namespace;
  std::string pod;
  std::string node;
  int container_index = 0;
  std::string device_uuid;  // HAMi leaves a share without a UUID out; so does /metrics
  int64_t memory_bytes = 0;
  double cores = 0;  // percent of the GPU, 0..100
};

struct GpuAllocationSnapshot {
  std::vector<NodeGpuAllocation> nodes;
  std::vector<PodGpuShare> pods;
};

// Shadow mode (prioritize only, changes nothing): the same pods placed twice, once as the
// scheduler did and once as slicelab would have.
struct ShadowSnapshot {
  double fragmented_gpus_actual = 0;    // GPUs' worth of capacity fragmented by actual decisions
  double fragmented_gpus_slicelab = 0;  // the same, had slicelab's choices been applied
  int64_t placeable_pending_pods = 0;   // pending pods slicelab's placement could have placed
  int64_t pods_total = 0;               // pods slicelab placed in its counterfactual state
  int64_t bound_same_node = 0;          // of those bound since, on slicelab's node
  int64_t bound_other_node = 0;         // on another node
};

// What the extender's cluster state holds (running totals where named so).
struct ClusterFigures {
  bool ready = false;  // the first LIST of nodes and of pods has arrived
  int64_t nodes = 0;
  int64_t pods_known = 0;
  int64_t pods_bound = 0;
  int64_t objects_rejected = 0;  // watched objects that could not be read
};

// One watch's health (node or pod), running totals as ResourceWatch counts them.
struct WatchFigures {
  int64_t lists = 0;     // complete LISTs: the first one and each re-list
  int64_t expired = 0;   // 410 Gone: the watch's resourceVersion had expired
  int64_t broken = 0;    // streams that failed mid-way
  int64_t failures = 0;  // requests that failed outright (refused, 5xx, 401)
};

// Shadow mode's decision log (--record DIR), running totals.
struct DecisionLogFigures {
  int64_t lines = 0;         // decision lines written to the log
  int64_t dropped = 0;       // lines dropped because the writer's queue was full
  int64_t write_errors = 0;  // writes or syncs that failed (the line is lost)
};

}  // namespace slicelab::k8s
