// The consistency report of a history import: which recorded placements the as-recorded policy
// could not reproduce when it replayed them, and why (docs/record-replay.md#consistency).
#pragma once

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "sim/metrics/run_result.h"
#include "sim/scenario/kube_import.h"
#include "sim/scenario/scenario.h"

namespace slicelab {

struct ReplayMismatch {
  std::string pod;
  std::string node;    // the recorded node
  std::string detail;  // one clause: what the pod asked and what the node had left, ...
};

// A recorded placement is reproduced when the replay put the pod on its recorded node (and GPUs,
// where recorded) no later than the cluster started it (as soon as it arrived when the recording
// has no start); the reasons it is not are
//   node-missing     the node is not in the inventory (the import could not pin the pod);
//   node-full-cpu, node-full-memory, node-full-gpus
//                    the node lacked that resource when the cluster started the pod (the first
//                    one short, counted over the pods the replay ran there then), so it started
//                    later or never;
//   not-placed       it waited or never ran on a node with room for it by these counts (GPU
//                    memory, a GPU model the pod excludes);
//   recorded-gpus-taken
//                    it ran on its node at once, but not on its recorded GPUs (workload.placements'
//                    gpus), which other pods held;
//   other-node       it ran elsewhere (never, while the recorded-node filter holds).
// Pods the cluster never bound have no placement to reproduce: counted apart.
struct ReplayConsistency {
  size_t recorded = 0;    // recorded placements (unknown nodes included)
  size_t reproduced = 0;  // of them
  size_t unbound = 0;     // replayed pods the cluster never bound
  std::map<std::string, std::vector<ReplayMismatch>> mismatches;  // reason -> pods, pod order
  size_t mismatch_count() const { return recorded - reproduced; }
};

// `run` is the scenario's as-recorded policy run (scenario.recorded pins its pods); `imported`
// the history import that wrote the scenario (its start times, its unknown nodes).
ReplayConsistency check_replay_consistency(const Scenario& scenario, const RunResult& run,
                                           const KubernetesImport& imported);

}  // namespace slicelab
