// A placement policy as the scenario names it (a preset, or explicit plugin names and weights),
// and its building from the plugin registry (sim/placement/plugin_registry.h).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/gpu_catalog.h"
#include "sim/placement/node_name_filter.h"
#include "sim/placement/placement_policy.h"
#include "sim/placement/recorded_gpu_picker.h"
#include "workloads/pod_spec.h"

namespace slicelab {

struct PlacementConfig {
  std::string preset;  // empty when the scenario spelled the plugins out
  std::vector<std::string> filters;
  std::vector<std::pair<std::string, int64_t>> scorers;  // name, weight (a positive integer)
  std::string picker;
  TieBreak tie_break = TieBreak::kRandom;
  // kube-scheduler's percentageOfNodesToScore, 0..100: 100 (off) scores every feasible node,
  // 0 is kube-scheduler's adaptive default (node_sampling.h).
  int percentage_of_nodes_to_score = NodeSampling::kOff;
};

std::optional<PlacementConfig> placement_preset(std::string_view name);
std::string placement_preset_names();  // for error messages

std::unique_ptr<Filter> make_filter(std::string_view name);        // nullptr if unknown
std::unique_ptr<Scorer> make_scorer(std::string_view name);        // nullptr if unknown
std::unique_ptr<DevicePicker> make_picker(std::string_view name);  // nullptr if unknown
std::string filter_names();
std::string scorer_names();
std::string picker_names();

// What some plugins need beyond the cluster: FGD builds its target workload (the popular pod
// shapes) from `target_pods` when given, else from the run's pods.
struct PlacementEnvironment {
  std::span<const PodSpec> pods;
  const GpuCatalog* catalog = nullptr;
  std::span<const PodSpec> target_pods = {};  // empty = `pods` (see RunInputs::target_pods)
  // The recorded-node filter's pods and nodes (workload.placements); empty: it pins none.
  std::span<const PinnedPod> recorded = {};
  // The recorded-gpus picker's pods and GPU indices (workload.placements' gpus).
  std::span<const RecordedGpus> recorded_gpus = {};
};

// All names must be known (the scenario loader checks them, with locations).
PlacementPolicy build_placement(const PlacementConfig& config,
                                const PlacementEnvironment& env = {});

}  // namespace slicelab
