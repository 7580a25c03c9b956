// Pins down the plugin registries: unique names, one-line descriptions, factories that make what
// their line names, presets built only from registered plugins, sorted name lists for errors, one
// shared object per policy build, and docs/placement.md listing every entry as registered.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <variant>

#include "sim/modes/dra/dra_settings.h"
#include "sim/modes/mig/mig_settings.h"
#include "sim/modes/mode_registry.h"
#include "sim/placement/plugin_registry.h"

namespace slicelab {
namespace plugin_registry_test {

std::string placement_doc() {
  std::ifstream in(std::string(SLICELAB_SOURCE_DIR) + "/docs/placement.md");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

constexpr size_t kMaxDescription = 90;  // one line of `slicelab plugins` within 110 columns

TEST(PluginRegistry, NamesAreUniqueWithinAKindAndDescriptionsAreOneLine) {
  std::set<std::pair<PluginKind, std::string_view>> seen;
  for (const auto& p : placement_plugins()) {
    SCOPED_TRACE(std::string(p.name));
    EXPECT_TRUE(seen.emplace(p.kind(), p.name).second) << "registered twice";
    EXPECT_FALSE(p.name.empty());
    EXPECT_FALSE(p.description.empty());
    EXPECT_LE(p.description.size(), kMaxDescription);
    EXPECT_EQ(p.description.find('\n'), std::string_view::npos);
  }
  std::set<std::string_view> modes;
  for (const auto& m : sharing_modes()) {
    SCOPED_TRACE(std::string(m.name));
    EXPECT_TRUE(modes.insert(m.name).second) << "registered twice";
    EXPECT_FALSE(m.description.empty());
    EXPECT_LE(m.description.size(), kMaxDescription);
    EXPECT_EQ(m.description.find('\n'), std::string_view::npos);
  }
}

// The name a plugin reports (in describe(), results and reports) is the name it is registered by.
TEST(PluginRegistry, FactoriesMakeThePluginTheirLineNames) {
  const PlacementEnvironment env;
  PlacementBuildContext ctx(env);
  size_t made = 0;
  for (const auto& p : placement_plugins()) {
    SCOPED_TRACE(std::string(p.name));
    if (const auto* f = std::get_if<FilterFactory>(&p.make)) {
      EXPECT_EQ((*f)(ctx)->name(), p.name);
      ++made;
    } else if (const auto* s = std::get_if<ScorerFactory>(&p.make)) {
      EXPECT_EQ((*s)(ctx)->name(), p.name);
      ++made;
    } else if (const auto* d = std::get_if<DevicePickerFactory>(&p.make)) {
      EXPECT_EQ((*d)(ctx)->name(), p.name);
      ++made;
    }
  }
  EXPECT_EQ(made, 4U + 10U + 10U);  // filters, scorers, device pickers
}

TEST(PluginRegistry, EveryPresetIsBuiltFromRegisteredPlugins) {
  size_t presets = 0;
  for (const auto& p : placement_plugins()) {
    if (p.kind() != PluginKind::kPreset) continue;
    SCOPED_TRACE(std::string(p.name));
    ++presets;
    const auto c = placement_preset(p.name);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->preset, p.name);
    for (const auto& f : c->filters)
      EXPECT_NE(find_placement_plugin(PluginKind::kFilter, f), nullptr) << f;
    for (const auto& [s, w] : c->scorers) {
      EXPECT_NE(find_placement_plugin(PluginKind::kScorer, s), nullptr) << s;
      EXPECT_GE(w, 1);
    }
    EXPECT_NE(find_placement_plugin(PluginKind::kDevicePicker, c->picker), nullptr) << c->picker;
    EXPECT_NE(build_placement(*c).describe().find("picker=" + c->picker), std::string::npos);
  }
  EXPECT_EQ(presets, 15U);
  EXPECT_FALSE(placement_preset("worst-fit").has_value());
  EXPECT_EQ(make_scorer("least-allocated"), nullptr);
  EXPECT_EQ(make_filter("binpack"), nullptr);  // a scorer's name is not a filter's
}

// The presets as they were before the registry: a refactoring must not change what runs.
TEST(PluginRegistry, PresetsBuildTheirPoliciesAsBefore) {
  const std::string filters = "filters=[gpu-capacity,resources,gpu-model] ";
  const std::pair<const char*, const char*> expected[] = {
      {"first-fit", "scorers=[] picker=first ties=first"},
      {"best-fit", "scorers=[binpack:1] picker=binpack ties=random"},
      {"binpack", "scorers=[binpack:1] picker=binpack ties=random"},
      {"spread", "scorers=[spread:1] picker=spread ties=random"},
      {"random", "scorers=[random:1] picker=random ties=random"},
      {"random-fit", "scorers=[random:1] picker=random ties=random"},
      {"dot-product", "scorers=[dot-product:1] picker=binpack ties=random"},
      {"gpu-packing", "scorers=[gpu-packing:1] picker=binpack ties=random"},
      {"gpu-clustering", "scorers=[gpu-clustering:1] picker=binpack ties=random"},
      {"fgd", "scorers=[fgd:1] picker=fgd ties=random"},
      {"topology-aware", "scorers=[binpack:1] picker=topology ties=random"},
  };
  for (const auto& [name, rest] : expected)
    EXPECT_EQ(build_placement(*placement_preset(name)).describe(), filters + rest) << name;
  // HAMi's filter is the run's; gpu-model would hold memory to the unscaled GPU's.
  for (const char* hami : {"hami", "hami-binpack", "hami-spread"})
    EXPECT_EQ(build_placement(*placement_preset(hami)).describe(),
              fmt::format("filters=[gpu-capacity,resources] scorers=[{0}:1] picker={0} "
                          "ties=random",
                          hami));
  // What the cluster did: its recorded node and GPUs first (docs/record-replay.md).
  EXPECT_EQ(build_placement(*placement_preset("as-recorded")).describe(),
            "filters=[recorded-node,gpu-capacity,resources,gpu-model] scorers=[binpack:1] "
            "picker=recorded-gpus ties=random");
}

TEST(PluginRegistry, NameListsComeSortedFromTheTables) {
  EXPECT_EQ(placement_plugin_names(PluginKind::kFilter),
            "gpu-capacity, gpu-model, recorded-node, resources");
  EXPECT_EQ(filter_names(), placement_plugin_names(PluginKind::kFilter));
  EXPECT_EQ(scorer_names(),
            "binpack, dot-product, fgd, gpu-clustering, gpu-packing, hami, hami-binpack, "
            "hami-spread, random, spread");
  EXPECT_EQ(picker_names(),
            "binpack, fgd, first, hami, hami-binpack, hami-spread, random, recorded-gpus, spread, "
            "topology");
  EXPECT_EQ(placement_preset_names(),
            "as-recorded, best-fit, binpack, dot-product, fgd, first-fit, gpu-clustering, "
            "gpu-packing, hami, hami-binpack, hami-spread, random, random-fit, spread, "
            "topology-aware");
  EXPECT_EQ(placement_plugin_names(PluginKind::kTieBreak), "first, node-order, random");
  EXPECT_EQ(sharing_mode_names(),
            "dra, gpu-share, hami, interposer, mig, mps, passthrough, time-slice, vgpu, "
            "whole-card");
}

TEST(PluginRegistry, TieBreakEntriesAgreeWithTheRuleNames) {
  size_t rules = 0;
  for (const auto& p : placement_plugins()) {
    if (p.kind() != PluginKind::kTieBreak) continue;
    ++rules;
    const TieBreak t = std::get<TieBreak>(p.make);
    EXPECT_EQ(tie_break_name(t), p.name);
    EXPECT_EQ(tie_break_from_name(p.name), t);
  }
  EXPECT_EQ(rules, 3U);
}

TEST(PluginRegistry, BuildContextMakesOneSharedObjectPerBuild) {
  const PlacementEnvironment env;
  int made = 0;
  auto make = [&](const PlacementEnvironment&) {
    ++made;
    return std::make_shared<const int>(made);
  };
  PlacementBuildContext one(env), other(env);
  const auto a = one.shared<int>(make);
  const auto b = one.shared<int>(make);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(made, 1);
  const auto c = other.shared<int>(make);
  EXPECT_NE(a.get(), c.get());
  EXPECT_EQ(made, 2);
  // Another type has its own slot.
  EXPECT_EQ(*one.shared<double>(
                [](const PlacementEnvironment&) { return std::make_shared<const double>(0.5); }),
            0.5);
}

TEST(SharingRegistry, EveryModeBuildsWithItsName) {
  for (const auto& m : sharing_modes()) {
    SCOPED_TRACE(std::string(m.name));
    SharingConfig c;
    c.kind = std::string(m.name);
    if (m.name == "mig") {
      EXPECT_THROW(make_sharing_mode(c), std::invalid_argument);  // needs its settings
      auto s = std::make_shared<MigSettings>();
      s->dynamic = true;
      c.set_mode_settings(s);
    }
    if (m.name == "dra") {
      EXPECT_THROW(make_sharing_mode(c), std::invalid_argument);  // needs its DRA objects
      auto s = std::make_shared<DraSettings>();
      s->model = std::make_shared<DraModel>();
      c.set_mode_settings(s);
    }
    EXPECT_EQ(make_sharing_mode(c)->kind(), m.name);
  }
  SharingConfig unknown;
  unknown.kind = "sriov";
  EXPECT_EQ(find_sharing_mode("sriov"), nullptr);
  EXPECT_THROW(make_sharing_mode(unknown), std::invalid_argument);
}

// docs/placement.md cannot fall behind the registries: each entry is a row "| `name` |
// description |" there, word for word.
TEST(PlacementDoc, ListsEveryRegisteredPluginAndSharingMode) {
  const std::string doc = placement_doc();
  ASSERT_FALSE(doc.empty()) << "docs/placement.md is missing";
  for (const auto& p : placement_plugins()) {
    const std::string row =
        "| `" + std::string(p.name) + "` | " + std::string(p.description) + " |";
    EXPECT_NE(doc.find(row), std::string::npos)
        << plugin_kind_name(p.kind()) << " missing from docs/placement.md: " << row;
  }
  for (const auto& m : sharing_modes()) {
    const std::string row =
        "| `" + std::string(m.name) + "` | " + std::string(m.description) + " |";
    EXPECT_NE(doc.find(row), std::string::npos)
        << "sharing mode missing from docs/placement.md: " << row;
  }
}

}  // namespace plugin_registry_test
}  // namespace slicelab
