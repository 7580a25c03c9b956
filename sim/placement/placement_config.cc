#include "sim/placement/placement_config.h"

#include <stdexcept>

#include "sim/placement/device_pickers.h"
#include "sim/placement/fgd_plugins.h"
#include "sim/placement/filters.h"
#include "sim/placement/paper_scorers.h"
#include "sim/placement/scorers.h"
#include "sim/placement/topology_picker.h"

namespace slicelab {
namespace {

// Most selective first on a busy cluster: free GPU capacity prunes the most, from per-node
// summaries, so the later filters see short lists.
const std::vector<std::string> kDefaultFilters = {"gpu-capacity", "resources", "gpu-model"};

}  // namespace

std::optional<PlacementConfig> placement_preset(std::string_view name) {
  PlacementConfig c;
  c.preset = std::string(name);
  c.filters = kDefaultFilters;
  if (name == "first-fit") {
    c.picker = "first";
    c.tie_break = TieBreak::kFirst;  // no scorer: every node ties, and first-fit means the first
  } else if (name == "best-fit" || name == "binpack") {
    c.scorers = {{"binpack", 1}};
    c.picker = "binpack";
  } else if (name == "spread") {
    c.scorers = {{"spread", 1}};
    c.picker = "spread";
  } else if (name == "random" || name == "random-fit") {
    c.scorers = {{"random", 1}};
    c.picker = "random";
  } else if (name == "dot-product") {
    c.scorers = {{"dot-product", 1}};
    c.picker = "binpack";  // the GPU with the smallest dot product is the fullest that fits
  } else if (name == "gpu-packing") {
    c.scorers = {{"gpu-packing", 1}};
    c.picker = "binpack";
  } else if (name == "gpu-clustering") {
    c.scorers = {{"gpu-clustering", 1}};
    c.picker = "binpack";
  } else if (name == "fgd") {
    // Alone, as the paper runs it: integer scores make near-equal nodes tie and the seeded
    // random tie-break spreads them (docs/fragmentation.md).
    c.scorers = {{"fgd", 1}};
    c.picker = "fgd";
  } else if (name == "topology-aware") {
    c.scorers = {{"binpack", 1}};
    c.picker = "topology";
  } else {
    return std::nullopt;
  }
  return c;
}

std::string placement_preset_names() {
  return "best-fit, binpack, dot-product, fgd, first-fit, gpu-clustering, gpu-packing, random, "
         "random-fit, spread, topology-aware";
}

std::unique_ptr<Filter> make_filter(std::string_view name) {
  if (name == "resources") return std::make_unique<ResourceFilter>();
  if (name == "gpu-model") return std::make_unique<GpuModelFilter>();
  if (name == "gpu-capacity") return std::make_unique<GpuCapacityFilter>();
  return nullptr;
}

std::unique_ptr<Scorer> make_scorer(std::string_view name) {
  if (name == "binpack") return std::make_unique<BinpackScorer>();
  if (name == "spread") return std::make_unique<SpreadScorer>();
  if (name == "random") return std::make_unique<RandomScorer>();
  if (name == "dot-product") return std::make_unique<DotProductScorer>();
  if (name == "gpu-packing") return std::make_unique<GpuPackingScorer>();
  if (name == "gpu-clustering") return std::make_unique<GpuClusteringScorer>();
  // Without an environment (name checks), FGD gets an empty target workload.
  if (name == "fgd")
    return std::make_unique<FgdScorer>(std::make_shared<FgdModel>(TargetWorkload{}));
  return nullptr;
}

std::unique_ptr<DevicePicker> make_picker(std::string_view name) {
  using Order = OrderedDevicePicker::Order;
  if (name == "binpack") return std::make_unique<OrderedDevicePicker>(Order::kFullestFirst);
  if (name == "spread") return std::make_unique<OrderedDevicePicker>(Order::kEmptiestFirst);
  if (name == "first") return std::make_unique<OrderedDevicePicker>(Order::kLowestIndex);
  if (name == "random") return std::make_unique<OrderedDevicePicker>(Order::kRandom);
  if (name == "topology") return std::make_unique<TopologyDevicePicker>();
  if (name == "fgd")
    return std::make_unique<FgdDevicePicker>(std::make_shared<FgdModel>(TargetWorkload{}));
  return nullptr;
}

std::string filter_names() {
  return "gpu-capacity, gpu-model, resources";
}
std::string scorer_names() {
  return "binpack, dot-product, fgd, gpu-clustering, gpu-packing, random, spread";
}
std::string picker_names() {
  return "binpack, fgd, first, random, spread, topology";
}

PlacementPolicy build_placement(const PlacementConfig& config, const PlacementEnvironment& env) {
  // One FGD model for the fgd scorer and picker alike, so a node is scored for the GPU it gives.
  std::shared_ptr<const FgdModel> fgd;
  auto fgd_model = [&] {
    if (!fgd) {
      const auto from = env.target_pods.empty() ? env.pods : env.target_pods;
      fgd = std::make_shared<FgdModel>(env.catalog ? TargetWorkload::from_pods(from, *env.catalog)
                                                   : TargetWorkload{});
    }
    return fgd;
  };
  std::vector<std::unique_ptr<Filter>> filters;
  for (const auto& f : config.filters) {
    auto p = make_filter(f);
    if (!p) throw std::invalid_argument("unknown filter " + f);
    filters.push_back(std::move(p));
  }
  std::vector<WeightedScorer> scorers;
  for (const auto& [name, weight] : config.scorers) {
    auto p = name == "fgd" ? std::make_unique<FgdScorer>(fgd_model()) : make_scorer(name);
    if (!p) throw std::invalid_argument("unknown scorer " + name);
    scorers.push_back({std::move(p), weight});
  }
  auto picker = config.picker == "fgd" ? std::make_unique<FgdDevicePicker>(fgd_model())
                                       : make_picker(config.picker);
  if (!picker) throw std::invalid_argument("unknown device picker " + config.picker);
  return PlacementPolicy(std::move(filters), std::move(scorers), std::move(picker),
                         config.tie_break);
}

}  // namespace slicelab
