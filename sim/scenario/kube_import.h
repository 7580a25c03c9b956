// `slicelab import kubernetes`: Kubernetes Node and Pod objects turned into a cluster (node
// groups that keep the nodes' names), a trace and a snapshot of the running pods.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sim/cluster_spec.h"
#include "sim/gpu_catalog.h"
#include "workloads/kube/kube_objects.h"
#include "workloads/pod_spec.h"

namespace slicelab {

struct KubernetesImportOptions {
  // The moment the export shows (seconds since the epoch); nullopt: its latest timestamp.
  std::optional<double> snapshot_s;
  double pending_duration_s = 3600;  // a pod with no finished sibling to learn from
  double running_duration_s = 3600;  // what is left of a running pod with nothing better known
  // --history (docs/record-replay.md): every pod that ran is replayed from `origin_s` (nullopt:
  // the earliest timestamp) on, arriving at its creation and running from its start to its end;
  // a pod created before the origin and bound then is pinned (the snapshot). A pod that has not
  // ended runs for `unended_duration_s` when given, else for its time up to `end_s` (nullopt:
  // the latest timestamp) plus running_duration_s. The placements that the pods ran on are kept
  // for the as-recorded policy.
  bool history = false;
  std::optional<double> origin_s;
  std::optional<double> end_s;
  std::optional<double> unended_duration_s;
};

// Where the cluster placed a pod (history imports): the scenario's workload.placements.
struct RecordedPlacement {
  std::string pod;
  std::string node;
  // The GPU indices of its slicelab.io/gpu-assignment annotation (docs/extender.md); empty when
  // it has none (or one that cannot be read: counted in unread_assignments).
  std::vector<int> gpus;
  // When the cluster started it, in seconds from time 0 (0 for a pod already running then);
  // nullopt when it never started.
  std::optional<double> started_s;
};

struct KubernetesImport {
  ClusterSpec cluster;
  // The snapshot's pods first (arrival 0, in export order), then the others by arrival.
  std::vector<PodSpec> pods;
  std::vector<std::pair<std::string, std::string>> snapshot;  // pod name, node name
  double snapshot_s = 0;
  std::map<std::string, int> phases;  // phase -> pods of the export
  int daemon_pods = 0;                // DaemonSet pods: their requests are taken off their nodes
  int finished_pods = 0;              // Succeeded and Failed before the snapshot: durations only
  int learned_durations = 0;          // pods whose duration is the median of finished siblings
  int default_durations = 0;          // pods whose duration is a default
  std::vector<std::string> notes;     // what was approximated, one sentence each
  // --- history imports only ---
  bool history = false;
  std::vector<RecordedPlacement> placements;  // every replayed pod that was bound, export order
  // Replayed pods bound to a node the nodes lack (they cannot be placed there): pod, node.
  std::vector<RecordedPlacement> unknown_nodes;
  int never_ran = 0;  // pods that ended without having started or been bound: not replayed
  int unbound = 0;    // replayed pods the cluster never bound (as-recorded places them itself)
  int unended = 0;    // replayed pods still running at the end (their duration is a guess)
  int unread_assignments = 0;  // GPU assignment annotations not read: those pods' GPUs are free
};

// What the import (and the scheduler extender) reads of one node: its allocatable CPU and
// memory, its physical GPUs (GFD's count, else allocatable / replicas) and their catalog model.
struct KubeNodeFacts {
  std::string product;  // GFD's label, upper case (HAMi matches GPU types against it)
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  size_t model = 0;
  int gpus = 0;
};
// Throws InputError naming the node: an unknown product, a GPU node without the product label.
KubeNodeFacts kube_node_facts(const KubeNode& node, const GpuCatalog& catalog);

// A pod's requests as a PodSpec (name, CPU, memory, priority, GPUs, HAMi's memory, cores and
// GPU types; not its arrival or duration). `nodes` are the cluster's, for HAMi's
// use-gputype/nouse-gputype; `notes` collects what was approximated.
struct KubePodConversion {
  bool cores_multi = false;       // gpucores of a multi-GPU pod, not imported
  bool priority_clamped = false;  // a priority beyond the trace format's range
};
PodSpec kube_pod_spec(const KubePod& pod, std::span<const KubeNodeFacts> nodes,
                      const GpuCatalog& catalog, KubePodConversion& notes);

// Nodes become node groups of identical nodes (allocatable CPU and memory, GPU model and
// count); pods as docs/kubernetes-import.md describes. Throws InputError naming the node or
// pod, the field and the value: an unknown GPU product, a GPU node without GFD's product
// label, a pod on a node the export lacks, a snapshot that over-commits a node.
KubernetesImport import_kubernetes(const KubeObjects& objects, const GpuCatalog& catalog,
                                   const KubernetesImportOptions& options);

// The files `import kubernetes` writes: the cluster as a scenario's `cluster:` section, the
// snapshot file, and a scenario comparing whole-card, time-slicing ×4, HAMi binpack and FGD's
// gpu-share; a history import adds the as-recorded policy first and workload.placements.
// `command` names the command in the scenario's first comment ("import kubernetes").
std::string kubernetes_cluster_yaml(const ClusterSpec& cluster, const GpuCatalog& catalog);
std::string kubernetes_snapshot_yaml(const KubernetesImport& imported, const std::string& source);
// History imports: workload.placements (docs/record-replay.md#as-recorded).
std::string kubernetes_placements_yaml(const KubernetesImport& imported, const std::string& source);
std::string kubernetes_scenario_yaml(const KubernetesImport& imported, const GpuCatalog& catalog,
                                     const std::string& name, const std::string& source,
                                     const std::string& command = "import kubernetes");

}  // namespace slicelab
