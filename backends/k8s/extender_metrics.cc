#include "backends/k8s/extender_metrics.h"

#include <string>
#include <utility>
#include <vector>

namespace slicelab::k8s {
namespace {

using Samples = GaugeFamily::Samples;

constexpr std::array<DecisionResult, 6> kResults = {
    DecisionResult::kFeasible, DecisionResult::kUnschedulable, DecisionResult::kPrioritized,
    DecisionResult::kBound,    DecisionResult::kBindFailed,    DecisionResult::kRejected};

// HAMi's label sets (cmd/scheduler/metrics.go), with its wrapped constant label "zone" last.
const std::vector<std::string> kDeviceLabels = {"node", "device_uuid", "device_index",
                                                "device_type", "zone"};
const std::vector<std::string> kAllocatedLabels = {"node",         "device_uuid", "device_index",
                                                   "device_cores", "device_type", "zone"};
const std::vector<std::string> kOverviewLabels = {
    "node",        "device_uuid", "device_index", "device_cores", "device_memory_limit",
    "device_type", "zone"};

const std::vector<std::string> kContainerLabels = {"namespace",       "node",        "pod",
                                                   "container_index", "device_uuid", "zone"};

constexpr double kBytesPerMiBDouble = 1024.0 * 1024.0;

}  // namespace

std::string_view decision_result_name(DecisionResult r) {
  switch (r) {
    case DecisionResult::kFeasible:
      return "feasible";
    case DecisionResult::kUnschedulable:
      return "unschedulable";
    case DecisionResult::kPrioritized:
      return "prioritized";
    case DecisionResult::kBound:
      return "bound";
    case DecisionResult::kBindFailed:
      return "bind_failed";
    case DecisionResult::kRejected:
      return "rejected";
  }
  return "unknown";
}

ExtenderMetrics::ExtenderMetrics(MetricRegistry& registry)
    : requests_(registry.counter("slicelab_extender_requests_total",
                                 "Extender HTTP requests by verb and HTTP status code",
                                 {"verb", "code"})),
      duration_(registry.histogram(
          "slicelab_extender_request_duration_seconds",
          "Time from receiving an extender request to its answer, parsing included", {"verb"},
          std::vector<double>(kLatencyBuckets.begin(), kLatencyBuckets.end()))),
      decisions_(registry.counter("slicelab_extender_decisions_total",
                                  "Extender decisions by result", {"result"})),
      memory_limit_(registry.gauge("hami_gpu_memory_limit_bytes",
                                   "Device memory limit for a certain GPU", kDeviceLabels)),
      core_limit_(registry.gauge("hami_gpu_core_limit_ratio", "Device core limit for a certain GPU",
                                 kDeviceLabels)),
      memory_allocated_(registry.gauge("hami_gpu_memory_allocated_bytes",
                                       "Device memory allocated for a certain GPU",
                                       kAllocatedLabels)),
      shared_count_(registry.gauge("hami_gpu_shared_count", "Number of containers sharing this GPU",
                                   kDeviceLabels)),
      core_allocated_(registry.gauge("hami_gpu_core_allocated_ratio",
                                     "Device core allocated for a certain GPU", kDeviceLabels)),
      overview_(registry.gauge("hami_node_gpu_overview", "GPU overview on a certain node",
                               kOverviewLabels)),
      memory_ratio_(registry.gauge("hami_node_gpu_memory_allocated_ratio",
                                   "GPU Memory Allocated Percentage on a certain GPU",
                                   kDeviceLabels)),
      pod_memory_(registry.gauge("hami_vgpu_memory_allocated_bytes",
                                 "vGPU memory allocated from a container", kContainerLabels)),
      pod_cores_(registry.gauge("hami_vgpu_core_allocated_ratio",
                                "vGPU core allocated from a container", kContainerLabels)),
      shadow_fragmented_(registry.gauge(
          "slicelab_shadow_fragmented_gpus",
          "GPUs' worth of capacity left fragmented: by the scheduler's actual decisions "
          "(side=\"actual\") and had slicelab's been applied (side=\"slicelab\")",
          {"side"})),
      shadow_placeable_(
          registry.gauge("slicelab_shadow_placeable_pending_pods",
                         "Pods still pending that slicelab's placement could have placed", {})),
      shadow_pods_(registry.counter(
          "slicelab_shadow_pods_total",
          "Pods slicelab placed in shadow mode's counterfactual state since the extender started",
          {})),
      shadow_bound_(registry.counter(
          "slicelab_shadow_bound_pods_total",
          "Pods shadow mode saw bound, by whether the scheduler chose slicelab's node",
          {"agreement"})),
      ready_(registry.gauge("slicelab_extender_ready",
                            "1 once the first lists of nodes and pods have arrived", {})),
      nodes_(registry.gauge("slicelab_extender_nodes", "Nodes in the extender's state", {})),
      pods_(registry.gauge("slicelab_extender_pods",
                           "Pods in the extender's state: known, and bound to a node", {"state"})),
      objects_rejected_(registry.counter("slicelab_extender_watch_objects_rejected_total",
                                         "Watched nodes and pods the extender could not read",
                                         {})) {
  for (size_t v = 0; v < kVerbs.size(); ++v) {
    duration_by_verb_[v] = &duration_.with({std::string(kVerbs[v])});
  }
  for (const DecisionResult r : kResults) {
    decision_by_result_[static_cast<size_t>(r)] =
        &decisions_.with({std::string(decision_result_name(r))});
  }
  shadow_fragmented_.with({"actual"});
  shadow_fragmented_.with({"slicelab"});
  shadow_placeable_.with({});
  shadow_pods_.with({});
  shadow_bound_.with({"same_node"});
  shadow_bound_.with({"other_node"});
  ready_.with({});
  nodes_.with({});
  pods_.with({"known"});
  pods_.with({"bound"});
  objects_rejected_.with({});
}

size_t ExtenderMetrics::verb_index(std::string_view verb) {
  for (size_t v = 0; v + 1 < kVerbs.size(); ++v) {
    if (kVerbs[v] == verb) return v;
  }
  return kVerbs.size() - 1;
}

void ExtenderMetrics::record_request(std::string_view verb, int http_status, double seconds) {
  observe_duration(verb, seconds);
  count_request(verb, http_status);
}

void ExtenderMetrics::observe_duration(std::string_view verb, double seconds) {
  duration_by_verb_[verb_index(verb)]->observe(seconds);
}

void ExtenderMetrics::count_request(std::string_view verb, int http_status) {
  const size_t v = verb_index(verb);
  if (http_status < 0 || http_status >= kStatusCodes) http_status = 0;
  auto& slot = request_by_code_[v][static_cast<size_t>(http_status)];
  Counter* c = slot.load(std::memory_order_acquire);
  if (c == nullptr) {
    // Two threads may race here; both get the same series from the family.
    c = &requests_.with({std::string(kVerbs[v]), std::to_string(http_status)});
    slot.store(c, std::memory_order_release);
  }
  c->add();
}

void ExtenderMetrics::record_decision(DecisionResult result) {
  decision_by_result_[static_cast<size_t>(result)]->add();
}

void ExtenderMetrics::update_gpu_allocation(const GpuAllocationSnapshot& snapshot) {
  Samples limit, core_limit, allocated, shared, core_allocated, overview, ratio;
  const std::string zone(kHamiZone);
  for (const NodeGpuAllocation& node : snapshot.nodes) {
    for (const GpuDeviceAllocation& g : node.gpus) {
      const std::string index = std::to_string(g.index);
      const std::string cores = std::to_string(g.cores_total);
      // HAMi writes the memory label in MiB (its accounting unit) and the values in bytes.
      const std::string memory_mib =
          std::to_string(g.memory_total_bytes / static_cast<int64_t>(kBytesPerMiBDouble));
      const std::vector<std::string> device = {node.node, g.uuid, index, g.type, zone};
      limit.emplace_back(device, static_cast<double>(g.memory_total_bytes));
      core_limit.emplace_back(device, g.cores_total);
      allocated.emplace_back(
          std::vector<std::string>{node.node, g.uuid, index, cores, g.type, zone},
          static_cast<double>(g.memory_allocated_bytes));
      shared.emplace_back(device, g.shared_count);
      core_allocated.emplace_back(device, g.cores_allocated);
      overview.emplace_back(
          std::vector<std::string>{node.node, g.uuid, index, cores, memory_mib, g.type, zone},
          static_cast<double>(g.memory_allocated_bytes));
      if (g.memory_total_bytes > 0) {
        ratio.emplace_back(device, static_cast<double>(g.memory_allocated_bytes) /
                                       static_cast<double>(g.memory_total_bytes));
      }
    }
  }
  Samples pod_memory, pod_cores;
  for (const PodGpuShare& p : snapshot.pods) {
    if (p.device_uuid.empty()) continue;
    const std::vector<std::string> labels = {
        p.pod_namespace, p.node, p.pod, std::to_string(p.container_index), p.device_uuid, zone};
    pod_memory.emplace_back(labels, static_cast<double>(p.memory_bytes));
    pod_cores.emplace_back(labels, p.cores);
  }
  pod_memory_.replace_all(std::move(pod_memory));
  pod_cores_.replace_all(std::move(pod_cores));
  memory_limit_.replace_all(std::move(limit));
  core_limit_.replace_all(std::move(core_limit));
  memory_allocated_.replace_all(std::move(allocated));
  shared_count_.replace_all(std::move(shared));
  core_allocated_.replace_all(std::move(core_allocated));
  overview_.replace_all(std::move(overview));
  memory_ratio_.replace_all(std::move(ratio));
}

namespace {

// Adds to `counter` what `total` has grown by since `seen`.
void add_growth(Counter& counter, int64_t total, int64_t& seen) {
  if (total > seen) {
    counter.add(static_cast<double>(total - seen));
    seen = total;
  }
}

}  // namespace

void ExtenderMetrics::update_shadow(const ShadowSnapshot& figures) {
  shadow_fragmented_.with({"actual"}).set(figures.fragmented_gpus_actual);
  shadow_fragmented_.with({"slicelab"}).set(figures.fragmented_gpus_slicelab);
  shadow_placeable_.with({}).set(static_cast<double>(figures.placeable_pending_pods));
  const std::lock_guard lock(totals_mutex_);
  add_growth(shadow_pods_.with({}), figures.pods_total, shadow_pods_seen_);
  add_growth(shadow_bound_.with({"same_node"}), figures.bound_same_node, same_node_seen_);
  add_growth(shadow_bound_.with({"other_node"}), figures.bound_other_node, other_node_seen_);
}

void ExtenderMetrics::update_cluster(const ClusterFigures& figures) {
  ready_.with({}).set(figures.ready ? 1 : 0);
  nodes_.with({}).set(static_cast<double>(figures.nodes));
  pods_.with({"known"}).set(static_cast<double>(figures.pods_known));
  pods_.with({"bound"}).set(static_cast<double>(figures.pods_bound));
  const std::lock_guard lock(totals_mutex_);
  add_growth(objects_rejected_.with({}), figures.objects_rejected, objects_rejected_seen_);
}

}  // namespace slicelab::k8s
