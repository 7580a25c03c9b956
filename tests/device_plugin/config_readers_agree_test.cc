// The simulator (a policy's `device_plugin_config:`, loaded into a scenario) and the node plugin
// (read_node_plugin_config) read NVIDIA's device-plugin config with one reader: fed the same
// files, they accept and refuse the same ones with the same messages. The only differences are
// the simulator's "not supported yet" (what it cannot model yet) and the node plugin's own
// `slicelab` section; every fixture in tests/data/device-plugin-configs/ says which it is.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "backends/device_plugin/plugin_config.h"
#include "sim/scenario/scenario.h"
#include "tests/support/temp_files.h"
#include "workloads/input_error.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;

enum class Expect {
  kBothAccept,
  kBothRefuse,         // the same message, which holds `text`
  kSimNotSupported,    // the plugin serves it; the simulator: "not supported yet: " + `text`
  kNodePluginSection,  // the plugin's own `slicelab:` section: the simulator refuses it
};

struct Case {
  Expect expect;
  std::string text;  // what the message holds (kBothRefuse, kSimNotSupported)
};

// Every file of the fixture folder, with what both consumers must do with it.
const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> kCases = {
      {"time-slicing-2.yaml", {Expect::kBothAccept, ""}},
      {"mps-4.yaml", {Expect::kBothAccept, ""}},
      {"whole-cards.yaml", {Expect::kBothAccept, ""}},
      {"no-version.yaml", {Expect::kBothAccept, ""}},
      {"configmap-one-entry.yaml", {Expect::kBothAccept, ""}},
      // NVIDIA's rule (replicas.go): replicas must be >= 2.
      {"replicas-0.yaml",
       {Expect::kBothRefuse,
        ":6:19: sharing.timeSlicing.resources[0].replicas: number of replicas must be >= 2, "
        "found '0'"}},
      {"replicas-1.yaml",
       {Expect::kBothRefuse,
        ":6:19: sharing.timeSlicing.resources[0].replicas: number of replicas must be >= 2, "
        "found '1'"}},
      {"replicas-49.yaml", {Expect::kBothRefuse, "expected an integer in 2..48, found '49'"}},
      {"replicas-four.yaml", {Expect::kBothRefuse, "expected an integer in 2..48, found 'four'"}},
      {"replicas-missing.yaml", {Expect::kBothRefuse, "missing required key 'replicas'"}},
      {"unknown-key.yaml",
       {Expect::kBothRefuse, "unknown key 'replcas' (did you mean 'replicas'?)"}},
      {"unknown-top-key.yaml", {Expect::kBothRefuse, ":2:1: top level: unknown key 'sharng'"}},
      {"unknown-flag.yaml", {Expect::kBothRefuse, "flags.plugin: unknown key 'passDeviceSpec'"}},
      {"version-v2.yaml",
       {Expect::kBothRefuse,
        ":1:10: version: unknown version: v2 (the device plugin's config format is v1)"}},
      {"mps-and-time-slicing.yaml",
       {Expect::kBothRefuse, "sharing.mps: give one of timeSlicing and mps"}},
      {"no-resources.yaml",
       {Expect::kBothRefuse, ":3:16: sharing.timeSlicing.resources: no resources specified"}},
      {"bad-resource-name.yaml", {Expect::kBothRefuse, "its name part 'g pu' holds a space"}},
      {"mps-with-mig-strategy.yaml",
       {Expect::kBothRefuse, "sharing using MPS is not supported for MIG devices"}},
      {"devices-count.yaml",
       {Expect::kBothRefuse, "expected all, or a list of GPU indices or UUIDs, found '2'"}},
      {"devices-bad-ref.yaml", {Expect::kBothRefuse, "devices[1]: expected a GPU index"}},
      {"shared-twice.yaml", {Expect::kBothRefuse, "nvidia.com/gpu is shared twice"}},
      {"bad-device-list-strategy.yaml",
       {Expect::kBothRefuse, "expected envvar, volume-mounts, cdi-annotations or cdi-cri"}},
      {"relative-mps-root.yaml", {Expect::kBothRefuse, "flags.mpsRoot: expected an absolute"}},
      {"empty-value.yaml", {Expect::kBothRefuse, ":1:1: version: expected a value, found nothing"}},
      {"configmap-two-entries.yaml", {Expect::kBothRefuse, "data: holds 2 configs (a, b)"}},
      // An error inside a `|` entry names the ConfigMap file's own line and column.
      {"configmap-entry-error.yaml",
       {Expect::kBothRefuse, ":9:44: sharing.timeSlicing.resources[0].replicas: number of"}},
      {"devices-list.yaml", {Expect::kSimNotSupported, "devices other than 'all'"}},
      {"two-resources.yaml", {Expect::kSimNotSupported, "2 resources"}},
      {"mig-resource.yaml", {Expect::kSimNotSupported, "sharing MIG devices"}},
      {"mig-strategy-single.yaml", {Expect::kSimNotSupported, "migStrategy 'single'"}},
      {"top-level-resources.yaml", {Expect::kSimNotSupported, "customising resources"}},
      {"rename.yaml", {Expect::kSimNotSupported, "rename to 'gpu.shared'"}},
      {"other-resource.yaml", {Expect::kSimNotSupported, "sharing example.com/gpu"}},
      {"slicelab-section.yaml", {Expect::kNodePluginSection, ""}},
      {"slicelab-section-with-sharing.yaml", {Expect::kNodePluginSection, ""}},
  };
  return kCases;
}

// A message, or nothing when the file was accepted.
using Outcome = std::optional<std::string>;

class DevicePluginConfigReaders : public testing::TempFilesTest {
 protected:
  // The simulator's path: a scenario whose policy names the file.
  Outcome simulator(const fs::path& file) {
    const std::string scenario = write("s.yaml", R"(name: t
cluster:
  node_groups:
    - {name: a, count: 1, gpu_model: A100-80GB, gpus_per_node: 2, cpu_milli: 64000, memory_mib: 512Gi}
workload:
  pods:
    - {name: one, duration: 1h, gpu_count: 1, gpu_milli: 500, gpu_memory_mib: 10Gi}
policies:
  - name: p
    placement: best-fit
    sharing: {device_plugin_config: ")" + file.string() +
                                                     "\"}\n");
    try {
      load_scenario(scenario);
      return std::nullopt;
    } catch (const InputError& e) {
      return std::string(e.what());
    }
  }
  // The node plugin's path.
  static Outcome node_plugin(const fs::path& file) {
    try {
      device_plugin::read_node_plugin_config(file.string());
      return std::nullopt;
    } catch (const InputError& e) {
      return std::string(e.what());
    }
  }
};

std::string show(const Outcome& o) {
  return o ? *o : "accepted";
}

TEST_F(DevicePluginConfigReaders, AcceptAndRefuseTheSameFilesWithTheSameMessages) {
  const fs::path folder = fs::path(SLICELAB_SOURCE_DIR) / "tests/data/device-plugin-configs";
  std::set<std::string> seen;
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    seen.insert(name);
    const auto it = cases().find(name);
    ASSERT_NE(it, cases().end()) << "a fixture without an expectation in this test";
    const Case& c = it->second;
    const Outcome sim = simulator(entry.path());
    const Outcome plugin = node_plugin(entry.path());
    const std::string file = entry.path().string();
    switch (c.expect) {
      case Expect::kBothAccept:
        EXPECT_EQ(show(sim), "accepted");
        EXPECT_EQ(show(plugin), "accepted");
        break;
      case Expect::kBothRefuse:
        ASSERT_TRUE(sim && plugin) << show(sim) << " / " << show(plugin);
        EXPECT_EQ(*sim, *plugin);
        EXPECT_EQ(sim->rfind(file + ":", 0), 0U) << *sim;  // located in the file itself
        EXPECT_NE(sim->find(c.text), std::string::npos) << *sim;
        break;
      case Expect::kSimNotSupported:
        EXPECT_EQ(show(plugin), "accepted");
        ASSERT_TRUE(sim);
        EXPECT_EQ(sim->rfind(file + ":", 0), 0U) << *sim;
        EXPECT_NE(sim->find(": not supported yet: " + c.text), std::string::npos) << *sim;
        break;
      case Expect::kNodePluginSection:
        ASSERT_TRUE(sim);
        EXPECT_NE(sim->find(": slicelab: not supported yet: the node plugin's own section"),
                  std::string::npos)
            << *sim;
        break;
    }
  }
  EXPECT_EQ(seen.size(), cases().size()) << "a case whose fixture file is missing";
}

// The configs shipped with scenarios/device-plugin.yaml: one outcome for both.
TEST_F(DevicePluginConfigReaders, ShippedConfigsGetOneAnswer) {
  const fs::path folder = fs::path(SLICELAB_SOURCE_DIR) / "scenarios/configs";
  size_t accepted = 0;
  for (const auto& entry : fs::directory_iterator(folder)) {
    SCOPED_TRACE(entry.path().string());
    const Outcome sim = simulator(entry.path());
    EXPECT_EQ(show(sim), show(node_plugin(entry.path())));
    accepted += sim ? 0 : 1;
  }
  EXPECT_GE(accepted, 3U);
}

}  // namespace
}  // namespace slicelab
