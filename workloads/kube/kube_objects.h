// The parts of Kubernetes Node and Pod objects (`kubectl get nodes,pods -o json|yaml`) that
// slicelab imports, read with file:line errors; docs/kubernetes-import.md has the table.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "workloads/kube/kube_export_stream.h"  // the limits: file, object, YAML document

namespace YAML {
class Node;
}

namespace slicelab {

struct KubeNode {
  std::string name;
  std::string where;          // "FILE:LINE:COL: items[3]", for messages that come later
  int64_t cpu_milli = 0;      // status.allocatable.cpu
  int64_t memory_mib = 0;     // status.allocatable.memory
  int64_t gpu_resources = 0;  // status.allocatable["nvidia.com/gpu"] (replicas included)
  std::vector<std::pair<std::string, int64_t>> mig;  // nvidia.com/mig-<profile>: count
  // GPU feature discovery's labels; `label_where` locates each for errors.
  std::optional<std::string> product;  // nvidia.com/gpu.product
  int64_t gpu_memory_mib = 0;          // nvidia.com/gpu.memory (0: absent)
  std::optional<int64_t> gpu_count;    // nvidia.com/gpu.count
  int64_t replicas = 1;                // nvidia.com/gpu.replicas (time-slicing, MPS)
  std::string mig_strategy;            // nvidia.com/mig.strategy: none, single, mixed
  std::map<std::string, std::string> label_where;
};

struct KubePod {
  std::string name;  // "<namespace>/<name>"
  std::string uid;   // metadata.uid (empty when absent: exports may strip it)
  std::string where;
  std::string owner;  // "<kind>/<name>" of the first ownerReference, else generateName or name
  std::string owner_kind;
  std::string phase;                 // status.phase (Pending when absent)
  std::string node_name;             // spec.nodeName
  int64_t priority = 0;              // spec.priority
  double created_s = 0;              // metadata.creationTimestamp, seconds since the epoch
  std::optional<double> started_s;   // earliest container startedAt, else status.startTime
  std::optional<double> finished_s;  // latest container finishedAt (all terminated)
  // Effective requests as kube-scheduler computes them: per resource the larger of the sum over
  // containers and the largest init container, plus spec.overhead; a container's request
  // defaults to its limit.
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int64_t gpus = 0;              // nvidia.com/gpu
  int64_t gpumem_mib = 0;        // HAMi nvidia.com/gpumem, per GPU (largest container)
  int64_t gpumem_percent = 0;    // HAMi nvidia.com/gpumem-percentage
  int64_t gpucores = 0;          // HAMi nvidia.com/gpucores, percent of each GPU
  std::string mig_profile;       // from nvidia.com/mig-<profile>: 1
  std::string selector_product;  // spec.nodeSelector["nvidia.com/gpu.product"]
  // HAMi's annotations nvidia.com/use-gputype and nouse-gputype: comma-separated GPU types.
  std::string use_gputype;
  std::string nouse_gputype;
  std::vector<std::string> ignored_resources;  // other vendors' (rdma/hca): not simulated
  // The scheduler extender's choice of GPUs (annotation slicelab.io/gpu-assignment, compact
  // JSON, docs/extender.md); empty when absent. Read as text: the extender parses it.
  std::string gpu_assignment;
};

struct KubeObjects {
  std::vector<KubeNode> nodes;
  std::vector<KubePod> pods;
  std::map<std::string, int> skipped_kinds;  // kind -> objects of it that are not imported
};

// Reads every Node and Pod of `path`: a List (kind List, NodeList, PodList), a single object,
// or a stream of them (YAML documents or JSON values one after another), one object at a time
// (workloads/kube/kube_export_stream.h has the limits). Throws InputError
// "FILE:LINE:COL: items[3].status.allocatable.cpu: …" naming the field, the object and the
// problem: a missing field, a bad quantity or timestamp, an unknown nvidia.com resource.
void read_kube_objects(const std::string& path, KubeObjects& into);

// The same rules on one tree already parsed (a JSON body turned into a YAML::Node by the
// scheduler extender): `source` names it in messages ("request body").
void read_kube_object_tree(const YAML::Node& doc, const std::string& source, KubeObjects& into);

}  // namespace slicelab
