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
// gpu-share.
std::string kubernetes_cluster_yaml(const ClusterSpec& cluster, const GpuCatalog& catalog);
std::string kubernetes_snapshot_yaml(const KubernetesImport& imported, const std::string& source);
std::string kubernetes_scenario_yaml(const KubernetesImport& imported, const GpuCatalog& catalog,
                                     const std::string& name, const std::string& source);

}  // namespace slicelab
