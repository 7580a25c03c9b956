// The registry of placement plugins. To add one: write its class in its own file, include it
// here and add one line to kPlugins (docs/placement.md, "How to add a policy").
#include "sim/placement/plugin_registry.h"

#include <algorithm>
#include <vector>

#include "sim/placement/device_pickers.h"
#include "sim/placement/fgd_plugins.h"
#include "sim/placement/filters.h"
#include "sim/placement/mode_plugins.h"
#include "sim/placement/node_name_filter.h"
#include "sim/placement/paper_scorers.h"
#include "sim/placement/recorded_gpu_picker.h"
#include "sim/placement/scorers.h"
#include "sim/placement/topology_picker.h"

namespace slicelab {
namespace {

// A preset: the default filters (most selective first on a busy cluster: free GPU capacity
// prunes the most, from per-node summaries, so the later filters see short lists), one scorer
// of weight 1 (none when empty), a device picker and the random tie rule unless told.
PlacementConfig preset_with(std::string_view scorer, std::string_view picker,
                            TieBreak tie_break = TieBreak::kRandom) {
  PlacementConfig c;
  c.filters = {"gpu-capacity", "resources", "gpu-model"};
  if (!scorer.empty()) c.scorers = {{std::string(scorer), 1}};
  c.picker = std::string(picker);
  c.tie_break = tie_break;
  return c;
}

template <class T>
std::unique_ptr<Filter> new_filter(PlacementBuildContext&) {
  return std::make_unique<T>();
}
template <class T>
std::unique_ptr<Scorer> new_scorer(PlacementBuildContext&) {
  return std::make_unique<T>();
}
template <OrderedDevicePicker::Order order>
std::unique_ptr<DevicePicker> new_ordered_picker(PlacementBuildContext&) {
  return std::make_unique<OrderedDevicePicker>(order);
}

// One FGD model per policy: its target workload (the popular pod shapes) comes from the pods
// the environment names for it (the trace, for a fill run), else the run's pods; without a
// catalog (name checks) it is empty.
std::shared_ptr<const FgdModel> shared_fgd_model(PlacementBuildContext& ctx) {
  return ctx.shared<FgdModel>([](const PlacementEnvironment& env) {
    const auto from = env.target_pods.empty() ? env.pods : env.target_pods;
    return std::make_shared<const FgdModel>(
        env.catalog ? TargetWorkload::from_pods(from, *env.catalog) : TargetWorkload{});
  });
}

using PickOrder = OrderedDevicePicker::Order;

// HAMi's scheduler: its filter is the run's (sharing mode hami), so the presets keep only the
// free-capacity and resource filters (gpu-model would hold memory to the unscaled GPU's).
PlacementConfig hami_preset(std::string_view plugins) {
  PlacementConfig c = preset_with(plugins, plugins);
  c.filters = {"gpu-capacity", "resources"};
  return c;
}
// The run of sharing mode hami holds them (sim/modes/hami/hami_plugins.h): they read its state.
constexpr std::string_view kHamiPlugins[] = {"hami", "hami-binpack", "hami-spread"};
template <size_t i>
std::unique_ptr<Scorer> new_hami_scorer(PlacementBuildContext&) {
  return std::make_unique<ModeScorer>(kHamiPlugins[i]);
}
template <size_t i>
std::unique_ptr<DevicePicker> new_hami_picker(PlacementBuildContext&) {
  return std::make_unique<ModeDevicePicker>(kHamiPlugins[i]);
}

const PlacementPlugin kPlugins[] = {
    // --- presets: what `placement: NAME` means ---
    {"first-fit", "the first node (lowest index) that passes the filters, its lowest-index GPUs",
     PresetFactory{[] { return preset_with("", "first", TieBreak::kFirst); }}},
    {"best-fit", "binpack scorer and device picker: the fullest node and GPU that fit",
     PresetFactory{[] { return preset_with("binpack", "binpack"); }}},
    {"binpack", "same as best-fit",
     PresetFactory{[] { return preset_with("binpack", "binpack"); }}},
    {"spread", "spread scorer and device picker: the emptiest node and GPU",
     PresetFactory{[] { return preset_with("spread", "spread"); }}},
    {"random", "random scorer and device picker: a uniform seeded node and GPU",
     PresetFactory{[] { return preset_with("random", "random"); }}},
    {"random-fit", "same as random", PresetFactory{[] { return preset_with("random", "random"); }}},
    // The GPU with the smallest dot product is the fullest that fits, hence binpack's picker.
    {"dot-product", "dot-product scorer (FGD paper's DotProd), binpack device picker",
     PresetFactory{[] { return preset_with("dot-product", "binpack"); }}},
    {"gpu-packing", "gpu-packing scorer (FGD paper's GpuPacking), binpack device picker",
     PresetFactory{[] { return preset_with("gpu-packing", "binpack"); }}},
    {"gpu-clustering", "gpu-clustering scorer (FGD paper's GpuClustering), binpack device picker",
     PresetFactory{[] { return preset_with("gpu-clustering", "binpack"); }}},
    // Alone, as the paper runs it: integer scores make near-equal nodes tie and the seeded
    // random tie-break spreads them (docs/fragmentation.md).
    {"fgd", "fgd scorer and device picker: fragmentation gradient descent (FGD paper)",
     PresetFactory{[] { return preset_with("fgd", "fgd"); }}},
    {"topology-aware", "binpack scorer, topology device picker (best-connected GPU sets)",
     PresetFactory{[] { return preset_with("binpack", "topology"); }}},
    // What the cluster did (docs/record-replay.md#as-recorded): each recorded pod on its node,
    // the others (never bound) as best-fit would place them.
    {"as-recorded", "each pod on the node the recording says it ran on (workload.placements)",
     PresetFactory{[] {
       PlacementConfig c = preset_with("binpack", "recorded-gpus");
       c.filters.insert(c.filters.begin(), "recorded-node");
       return c;
     }}},
    {"hami", "HAMi's scheduler with the sharing settings' node and GPU policies (sharing hami)",
     PresetFactory{[] { return hami_preset("hami"); }}},
    {"hami-binpack", "HAMi's scheduler, node and GPU policy binpack (sharing mode hami)",
     PresetFactory{[] { return hami_preset("hami-binpack"); }}},
    {"hami-spread", "HAMi's scheduler, node and GPU policy spread (sharing mode hami)",
     PresetFactory{[] { return hami_preset("hami-spread"); }}},

    // --- filters ---
    {"gpu-capacity", "enough GPUs with room for the pod's share under the sharing mode",
     FilterFactory{new_filter<GpuCapacityFilter>}},
    {"resources", "enough free CPU and memory on the node",
     FilterFactory{new_filter<ResourceFilter>}},
    {"gpu-model", "a GPU model the pod allows, with at least the pod's GPU memory",
     FilterFactory{new_filter<GpuModelFilter>}},
    {"recorded-node", "a pod of workload.placements passes on its recorded node only",
     FilterFactory{[](PlacementBuildContext& ctx) -> std::unique_ptr<Filter> {
       return std::make_unique<NodeNameFilter>(ctx.env().recorded, ctx.env().pods.size(),
                                               "recorded-node");
     }}},

    // --- scorers ---
    {"binpack", "least CPU and GPU left after placement (best-fit), min-max normalised",
     ScorerFactory{new_scorer<BinpackScorer>}},
    {"spread", "most CPU and GPU left after placement, min-max normalised",
     ScorerFactory{new_scorer<SpreadScorer>}},
    {"random", "one seeded uniform candidate scores 100, the others 0",
     ScorerFactory{new_scorer<RandomScorer>}},
    {"dot-product", "smallest dot product of free (CPU, GPU) and the pod's request wins",
     ScorerFactory{new_scorer<DotProductScorer>}},
    {"gpu-packing", "partly used GPUs first, then used nodes, then idle ones (paper's tiers)",
     ScorerFactory{new_scorer<GpuPackingScorer>}},
    {"gpu-clustering", "nodes running pods of the same GPU shape first (paper's tags)",
     ScorerFactory{new_scorer<GpuClusteringScorer>}},
    {"fgd", "least growth of the node's GPU fragmentation for the target workload",
     ScorerFactory{[](PlacementBuildContext& ctx) -> std::unique_ptr<Scorer> {
       return std::make_unique<FgdScorer>(shared_fgd_model(ctx));
     }}},
    {"hami", "HAMi's node score under the sharing settings' node_policy (sharing mode hami)",
     ScorerFactory{new_hami_scorer<0>}},
    {"hami-binpack", "HAMi's node score, the highest wins (binpack; sharing mode hami)",
     ScorerFactory{new_hami_scorer<1>}},
    {"hami-spread", "HAMi's node score, the lowest wins (spread; sharing mode hami)",
     ScorerFactory{new_hami_scorer<2>}},

    // --- device pickers: the Reserve step that chooses the GPUs on the chosen node ---
    {"binpack", "a share: the fullest GPU that fits; whole GPUs: the lowest-index idle ones",
     DevicePickerFactory{new_ordered_picker<PickOrder::kFullestFirst>}},
    {"spread", "a share: the emptiest GPU that fits; whole GPUs: the lowest-index idle ones",
     DevicePickerFactory{new_ordered_picker<PickOrder::kEmptiestFirst>}},
    {"first", "the lowest-index GPUs that fit",
     DevicePickerFactory{new_ordered_picker<PickOrder::kLowestIndex>}},
    {"random", "a share: a uniform seeded GPU that fits; whole GPUs: the lowest-index idle ones",
     DevicePickerFactory{new_ordered_picker<PickOrder::kRandom>}},
    {"topology", "best-connected free GPU set (NVIDIA); one GPU: the worst-connected (HAMi)",
     DevicePickerFactory{[](PlacementBuildContext&) -> std::unique_ptr<DevicePicker> {
       return std::make_unique<TopologyDevicePicker>();
     }}},
    {"recorded-gpus", "the GPUs of workload.placements when they fit, else as first",
     DevicePickerFactory{[](PlacementBuildContext& ctx) -> std::unique_ptr<DevicePicker> {
       return std::make_unique<RecordedGpuPicker>(ctx.env().recorded_gpus, ctx.env().pods.size());
     }}},
    {"fgd", "a share: the GPU the fgd scorer scored the node for; whole GPUs as binpack",
     DevicePickerFactory{[](PlacementBuildContext& ctx) -> std::unique_ptr<DevicePicker> {
       return std::make_unique<FgdDevicePicker>(shared_fgd_model(ctx));
     }}},
    {"hami", "HAMi's device order under the sharing settings' gpu_policy (sharing mode hami)",
     DevicePickerFactory{new_hami_picker<0>}},
    {"hami-binpack", "HAMi's device order, the highest GPU score first (sharing mode hami)",
     DevicePickerFactory{new_hami_picker<1>}},
    {"hami-spread", "HAMi's device order, the lowest GPU score first (sharing mode hami)",
     DevicePickerFactory{new_hami_picker<2>}},

    // --- tie-break rules (selectHost among the nodes with the highest weighted score) ---
    {"random", "uniform seeded choice among the maxima, drawn per pod (kube-scheduler)",
     TieBreak::kRandom},
    {"node-order", "first maximum in a seeded node order fixed per run (FGD paper's simulator)",
     TieBreak::kNodeOrder},
    {"first", "lowest node index among the maxima (deterministic studies, first-fit)",
     TieBreak::kFirst},
};

}  // namespace

std::span<const PlacementPlugin> placement_plugins() {
  return kPlugins;
}

const PlacementPlugin* find_placement_plugin(PluginKind kind, std::string_view name) {
  for (const auto& p : kPlugins)
    if (p.kind() == kind && p.name == name) return &p;
  return nullptr;
}

std::string placement_plugin_names(PluginKind kind) {
  std::vector<std::string_view> names;
  for (const auto& p : kPlugins)
    if (p.kind() == kind) names.push_back(p.name);
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

std::string_view plugin_kind_name(PluginKind kind) {
  switch (kind) {
    case PluginKind::kPreset:
      return "preset";
    case PluginKind::kFilter:
      return "filter";
    case PluginKind::kScorer:
      return "scorer";
    case PluginKind::kDevicePicker:
      return "device picker";
    case PluginKind::kTieBreak:
      return "tie-break rule";
  }
  return "?";
}

}  // namespace slicelab
