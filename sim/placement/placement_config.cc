#include "sim/placement/placement_config.h"

#include <stdexcept>

#include "sim/placement/device_pickers.h"
#include "sim/placement/filters.h"
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
  } else if (name == "best-fit" || name == "binpack") {
    c.scorers = {{"binpack", 1.0}};
    c.picker = "binpack";
  } else if (name == "spread") {
    c.scorers = {{"spread", 1.0}};
    c.picker = "spread";
  } else if (name == "random") {
    c.scorers = {{"random", 1.0}};
    c.picker = "random";
  } else if (name == "topology-aware") {
    c.scorers = {{"binpack", 1.0}};
    c.picker = "topology";
  } else {
    return std::nullopt;
  }
  return c;
}

std::string placement_preset_names() {
  return "best-fit, binpack, first-fit, random, spread, topology-aware";
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
  return nullptr;
}

std::unique_ptr<DevicePicker> make_picker(std::string_view name) {
  using Order = OrderedDevicePicker::Order;
  if (name == "binpack") return std::make_unique<OrderedDevicePicker>(Order::kFullestFirst);
  if (name == "spread") return std::make_unique<OrderedDevicePicker>(Order::kEmptiestFirst);
  if (name == "first") return std::make_unique<OrderedDevicePicker>(Order::kLowestIndex);
  if (name == "random") return std::make_unique<OrderedDevicePicker>(Order::kRandom);
  if (name == "topology") return std::make_unique<TopologyDevicePicker>();
  return nullptr;
}

std::string filter_names() {
  return "gpu-capacity, gpu-model, resources";
}
std::string scorer_names() {
  return "binpack, random, spread";
}
std::string picker_names() {
  return "binpack, first, random, spread, topology";
}

PlacementPolicy build_placement(const PlacementConfig& config) {
  std::vector<std::unique_ptr<Filter>> filters;
  for (const auto& f : config.filters) {
    auto p = make_filter(f);
    if (!p) throw std::invalid_argument("unknown filter " + f);
    filters.push_back(std::move(p));
  }
  std::vector<WeightedScorer> scorers;
  for (const auto& [name, weight] : config.scorers) {
    auto p = make_scorer(name);
    if (!p) throw std::invalid_argument("unknown scorer " + name);
    scorers.push_back({std::move(p), weight});
  }
  auto picker = make_picker(config.picker);
  if (!picker) throw std::invalid_argument("unknown device picker " + config.picker);
  return PlacementPolicy(std::move(filters), std::move(scorers), std::move(picker));
}

}  // namespace slicelab
