#include "backends/k8s/extender_metrics.h"

#include <charconv>
#include <string>
#include <utility>
#include <vector>

namespace slicelab::k8s {
namespace {

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
                                         "Watched nodes and pods the extender could not read", {})),
      watch_lists_(registry.counter(
          "slicelab_extender_watch_lists_total",
          "Complete LISTs of the API server's watch: the first one and each re-list", {"kind"})),
      watch_expired_(registry.counter(
          "slicelab_extender_watch_expired_total",
          "Watches whose resourceVersion had expired (410 Gone), each followed by a re-list",
          {"kind"})),
      watch_broken_(registry.counter("slicelab_extender_watch_broken_total",
                                     "Watch streams that broke mid-way", {"kind"})),
      watch_failures_(registry.counter("slicelab_extender_watch_failures_total",
                                       "LIST and WATCH requests that failed outright", {"kind"})),
      record_lines_(registry.counter("slicelab_shadow_record_lines_total",
                                     "Shadow decision lines written to the --record folder", {})),
      record_dropped_(registry.counter(
          "slicelab_shadow_record_dropped_total",
          "Shadow decision lines dropped because the writer's queue was full", {})),
      record_errors_(registry.counter("slicelab_shadow_record_write_errors_total",
                                      "Writes of shadow decision lines that failed", {})),
      resident_memory_(
          registry.gauge("process_resident_memory_bytes", "Resident memory size in bytes", {})),
      memory_limit_(registry.collected_gauge(
          "hami_gpu_memory_limit_bytes", "Device memory limit for a certain GPU", kDeviceLabels)),
      core_limit_(registry.collected_gauge("hami_gpu_core_limit_ratio",
                                           "Device core limit for a certain GPU", kDeviceLabels)),
      memory_allocated_(registry.collected_gauge("hami_gpu_memory_allocated_bytes",
                                                 "Device memory allocated for a certain GPU",
                                                 kAllocatedLabels)),
      shared_count_(registry.collected_gauge(
          "hami_gpu_shared_count", "Number of containers sharing this GPU", kDeviceLabels)),
      core_allocated_(registry.collected_gauge("hami_gpu_core_allocated_ratio",
                                               "Device core allocated for a certain GPU",
                                               kDeviceLabels)),
      overview_(registry.collected_gauge("hami_node_gpu_overview", "GPU overview on a certain node",
                                         kOverviewLabels)),
      memory_ratio_(registry.collected_gauge("hami_node_gpu_memory_allocated_ratio",
                                             "GPU Memory Allocated Percentage on a certain GPU",
                                             kDeviceLabels)),
      pod_memory_(registry.collected_gauge("hami_vgpu_memory_allocated_bytes",
                                           "vGPU memory allocated from a container",
                                           kContainerLabels)),
      pod_cores_(registry.collected_gauge("hami_vgpu_core_allocated_ratio",
                                          "vGPU core allocated from a container",
                                          kContainerLabels)) {
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
  for (const char* kind : {"node", "pod"}) {
    watch_lists_.with({kind});
    watch_expired_.with({kind});
    watch_broken_.with({kind});
    watch_failures_.with({kind});
  }
  record_lines_.with({});
  record_dropped_.with({});
  record_errors_.with({});
  resident_memory_.with({});
  set_gpu_collectors();
}

namespace {

// Writes one line per GPU of the snapshot with `labels_and_value(node, gpu, writer)`.
template <typename Write>
void each_gpu(const std::shared_ptr<const GpuAllocationSnapshot>& s, SampleWriter& w,
              const Write& write) {
  if (!s) return;
  for (const NodeGpuAllocation& node : s->nodes) {
    for (const GpuDeviceAllocation& g : node.gpus) {
      if (!write(node, g, w)) return;
    }
  }
}

// Integers as label text without an allocation.
struct IntText {
  explicit IntText(int64_t v) {
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    len = static_cast<size_t>(r.ptr - buf);
  }
  std::string_view view() const { return {buf, len}; }
  char buf[24];
  size_t len = 0;
};

}  // namespace

// HAMi's label sets (cmd/scheduler/metrics.go), with its wrapped constant label "zone" last; the
// memory label of the overview in MiB (its accounting unit), the values in bytes.
void ExtenderMetrics::set_gpu_collectors() {
  const std::string_view zone = kHamiZone;
  const auto device = [this, zone](CollectedGaugeFamily& family, auto value_of) {
    family.set_collector([this, zone, value_of](SampleWriter& w) {
      each_gpu(gpus(), w,
               [&](const NodeGpuAllocation& n, const GpuDeviceAllocation& g, SampleWriter& out) {
                 const IntText index(g.index);
                 return out.add({n.node, g.uuid, index.view(), g.type, zone}, value_of(g));
               });
    });
  };
  device(memory_limit_,
         [](const GpuDeviceAllocation& g) { return static_cast<double>(g.memory_total_bytes); });
  device(core_limit_,
         [](const GpuDeviceAllocation& g) { return static_cast<double>(g.cores_total); });
  device(shared_count_,
         [](const GpuDeviceAllocation& g) { return static_cast<double>(g.shared_count); });
  device(core_allocated_, [](const GpuDeviceAllocation& g) { return g.cores_allocated; });
  memory_allocated_.set_collector([this, zone](SampleWriter& w) {
    each_gpu(gpus(), w,
             [&](const NodeGpuAllocation& n, const GpuDeviceAllocation& g, SampleWriter& out) {
               const IntText index(g.index), cores(g.cores_total);
               return out.add({n.node, g.uuid, index.view(), cores.view(), g.type, zone},
                              static_cast<double>(g.memory_allocated_bytes));
             });
  });
  overview_.set_collector([this, zone](SampleWriter& w) {
    each_gpu(
        gpus(), w,
        [&](const NodeGpuAllocation& n, const GpuDeviceAllocation& g, SampleWriter& out) {
          const IntText index(g.index), cores(g.cores_total);
          const IntText memory_mib(g.memory_total_bytes / static_cast<int64_t>(kBytesPerMiBDouble));
          return out.add(
              {n.node, g.uuid, index.view(), cores.view(), memory_mib.view(), g.type, zone},
              static_cast<double>(g.memory_allocated_bytes));
        });
  });
  memory_ratio_.set_collector([this, zone](SampleWriter& w) {
    each_gpu(gpus(), w,
             [&](const NodeGpuAllocation& n, const GpuDeviceAllocation& g, SampleWriter& out) {
               if (g.memory_total_bytes <= 0) return true;
               const IntText index(g.index);
               return out.add({n.node, g.uuid, index.view(), g.type, zone},
                              static_cast<double>(g.memory_allocated_bytes) /
                                  static_cast<double>(g.memory_total_bytes));
             });
  });
  // Per container (a pod's GPUs are counted on its first container); a share without a UUID is
  // left out, as HAMi does.
  const auto per_pod = [this, zone](CollectedGaugeFamily& family, auto value_of) {
    family.set_collector([this, zone, value_of](SampleWriter& w) {
      const std::shared_ptr<const GpuAllocationSnapshot> s = gpus();
      if (!s) return;
      for (const PodGpuShare& p : s->pods) {
        if (p.device_uuid.empty()) continue;
        const IntText container(p.container_index);
        if (!w.add({p.pod_namespace, p.node, p.pod, container.view(), p.device_uuid, zone},
                   value_of(p)))
          return;
      }
    });
  };
  per_pod(pod_memory_, [](const PodGpuShare& p) { return static_cast<double>(p.memory_bytes); });
  per_pod(pod_cores_, [](const PodGpuShare& p) { return p.cores; });
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

void ExtenderMetrics::update_gpu_allocation(GpuAllocationSnapshot snapshot) {
  auto next = std::make_shared<const GpuAllocationSnapshot>(std::move(snapshot));
  std::shared_ptr<const GpuAllocationSnapshot> old;
  {
    const std::lock_guard lock(gpus_mutex_);
    old = std::exchange(gpus_, std::move(next));
  }
  // The old snapshot is freed here, outside the lock (or by a scrape still reading it).
}

std::shared_ptr<const GpuAllocationSnapshot> ExtenderMetrics::gpus() const {
  const std::lock_guard lock(gpus_mutex_);
  return gpus_;
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

void ExtenderMetrics::update_watch(std::string_view kind, const WatchFigures& figures) {
  size_t k = 0;
  if (kind == "pod") {
    k = 1;
  } else if (kind != "node") {
    return;
  }
  const std::vector<std::string> labels = {std::string(kind)};
  const std::lock_guard lock(totals_mutex_);
  WatchFigures& seen = watch_seen_[k];
  add_growth(watch_lists_.with(labels), figures.lists, seen.lists);
  add_growth(watch_expired_.with(labels), figures.expired, seen.expired);
  add_growth(watch_broken_.with(labels), figures.broken, seen.broken);
  add_growth(watch_failures_.with(labels), figures.failures, seen.failures);
}

void ExtenderMetrics::update_decision_log(const DecisionLogFigures& figures) {
  const std::lock_guard lock(totals_mutex_);
  add_growth(record_lines_.with({}), figures.lines, record_seen_.lines);
  add_growth(record_dropped_.with({}), figures.dropped, record_seen_.dropped);
  add_growth(record_errors_.with({}), figures.write_errors, record_seen_.write_errors);
}

void ExtenderMetrics::update_resident_memory(int64_t bytes) {
  resident_memory_.with({}).set(static_cast<double>(bytes));
}

}  // namespace slicelab::k8s
