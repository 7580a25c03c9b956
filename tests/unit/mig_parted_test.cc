// Pins down the nvidia-mig-parted reader and the scenario's MIG surface: configurations from a
// file and inline, located errors, and invalid layouts rejected at load time with the conflict.
#include <gtest/gtest.h>

#include <string>

#include "sim/modes/mig/mig_parted.h"
#include "sim/modes/mig/mig_settings.h"
#include "sim/scenario/scenario.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

using testing::message_of;

class MigParted : public testing::TempFilesTest {};

const char* kParted = R"(version: v1
mig-configs:
  all-disabled:
    - devices: all
      mig-enabled: false
  balanced:
    - devices: all
      mig-enabled: true
      mig-devices: {"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1}
  custom:
    - devices: [0, 1]
      mig-enabled: true
      mig-devices:
        "1g.10gb": 7
    - devices: all
      mig-enabled: false
)";

TEST_F(MigParted, ReadsConfigurationsInFileOrder) {
  const MigPartedConfig c = load_mig_parted_file(write("parted.yaml", kParted));
  EXPECT_EQ(c.names(), "all-disabled, balanced, custom");
  const auto& balanced = c.configs.at("balanced");
  ASSERT_EQ(balanced.size(), 1U);
  EXPECT_TRUE(balanced[0].devices.empty());
  EXPECT_TRUE(balanced[0].mig_enabled);
  EXPECT_TRUE(balanced[0].applies_to(5));
  using Devices = std::vector<std::pair<std::string, int>>;
  EXPECT_EQ(balanced[0].mig_devices, (Devices{{"1g.10gb", 2}, {"2g.20gb", 1}, {"3g.40gb", 1}}));
  const auto& custom = c.configs.at("custom");
  ASSERT_EQ(custom.size(), 2U);
  EXPECT_EQ(custom[0].devices, (std::vector<int>{0, 1}));
  EXPECT_TRUE(custom[0].applies_to(1));
  EXPECT_FALSE(custom[0].applies_to(2));
  EXPECT_FALSE(custom[1].mig_enabled);
  EXPECT_FALSE(c.configs.at("all-disabled")[0].mig_enabled);
}

TEST_F(MigParted, ErrorsAreLocated) {
  const std::string bad_profile = write("p.yaml", R"(version: v1
mig-configs:
  x:
    - devices: all
      mig-enabled: true
      mig-devices: {"1g.7gb": 1}
)");
  EXPECT_EQ(
      message_of([&] { load_mig_parted_file(bad_profile); })
          .rfind(bad_profile + ":6:21: mig-configs.x[0].mig-devices.1g.7gb: unknown MIG profile "
                               "'1g.7gb' (known: 1g.10gb, ",
                 0),
      0U)
      << message_of([&] { load_mig_parted_file(bad_profile); });
  const std::string no_version = write("v.yaml",
                                       "mig-configs: {x: [{devices: all, "
                                       "mig-enabled: false}]}\n");
  EXPECT_EQ(message_of([&] { load_mig_parted_file(no_version); }),
            no_version + ":1:1: top level: a mig-parted file needs 'version: v1'");
  const std::string v2 = write("v2.yaml", "version: v2\nmig-configs: {}\n");
  EXPECT_EQ(message_of([&] { load_mig_parted_file(v2); }),
            v2 + ":1:10: version: expected v1, found 'v2'");
  const std::string devices = write("d.yaml", R"(version: v1
mig-configs:
  x:
    - devices: some
      mig-enabled: true
)");
  EXPECT_EQ(message_of([&] { load_mig_parted_file(devices); }),
            devices +
                ":4:16: mig-configs.x[0].devices: expected all or a list of GPU indexes, "
                "found 'some'");
  const std::string disabled = write("e.yaml", R"(version: v1
mig-configs:
  x:
    - devices: all
      mig-enabled: false
      mig-devices: {"1g.10gb": 1}
)");
  EXPECT_EQ(message_of([&] { load_mig_parted_file(disabled); }),
            disabled + ":6:20: mig-configs.x[0].mig-devices: needs mig-enabled: true");
}

std::string scenario(const std::string& model, const std::string& sharing) {
  return "cluster:\n  node_groups:\n    - {name: g, count: 1, gpu_model: " + model +
         ", gpus_per_node: 2, cpu_milli: 8000, memory_mib: 64Gi}\n"
         "workload:\n  pods:\n    - {name: a, duration: 10, mig_profile: 1g.10gb}\n"
         "    - {name: b, duration: 10, gpu_count: 1, gpu_milli: 300, gpu_memory_mib: 8Gi}\n"
         "policies:\n  - name: m\n    placement: first-fit\n    sharing: " +
         sharing + "\n";
}

TEST_F(MigParted, ScenarioWithFileAndInlineConfigurations) {
  write("parted.yaml", kParted);
  const Scenario from_file = load_scenario(write(
      "s.yaml", scenario("H100-80GB", "{mode: mig, layout: balanced, mig_config: parted.yaml}")));
  ASSERT_TRUE(from_file.policies[0].sharing.mode_settings<MigSettings>());
  EXPECT_EQ(from_file.policies[0].sharing.kind, "mig");
  EXPECT_EQ(from_file.policies[0].sharing.mode_settings<MigSettings>()->layout, "balanced");
  EXPECT_FALSE(from_file.policies[0].sharing.mode_settings<MigSettings>()->dynamic);
  EXPECT_EQ(from_file.pods[0].mig_profile, "1g.10gb");
  EXPECT_EQ(from_file.pods[0].gpu_count, 1);
  const Scenario inline_cfg = load_scenario(write(
      "i.yaml",
      scenario("A100-80GB",
               "\n      mode: mig\n      layout: two\n      mig_config:\n        mig-configs:\n"
               "          two:\n            - devices: [1]\n              mig-enabled: true\n"
               "              mig-devices: {\"3g.40gb\": 2}\n")));
  ASSERT_EQ(inline_cfg.policies[0].sharing.mode_settings<MigSettings>()->rules.size(), 1U);
  EXPECT_EQ(inline_cfg.policies[0].sharing.mode_settings<MigSettings>()->rules[0].devices,
            (std::vector<int>{1}));
  const Scenario dynamic =
      load_scenario(write("d.yaml", scenario("A100-80GB", "{mode: mig, dynamic: true}")));
  EXPECT_TRUE(dynamic.policies[0].sharing.mode_settings<MigSettings>()->dynamic);
  EXPECT_DOUBLE_EQ(dynamic.policies[0].sharing.mode_settings<MigSettings>()->reconfigure_s, 60.0);
  const Scenario slow = load_scenario(
      write("d2.yaml", scenario("A100-80GB", "{mode: mig, dynamic: true, reconfigure_s: 2m}")));
  EXPECT_DOUBLE_EQ(slow.policies[0].sharing.mode_settings<MigSettings>()->reconfigure_s, 120.0);
}

TEST_F(MigParted, ScenarioErrorsNameTheConflict) {
  write("parted.yaml", kParted);
  // balanced uses H100/A100-80GB names: on an A100-40GB its 1g.10gb is fine but 2g.20gb is not.
  const std::string wrong_gpu = write(
      "w.yaml", scenario("A100-40GB", "{mode: mig, layout: balanced, mig_config: parted.yaml}"));
  EXPECT_EQ(message_of([&] { load_scenario(wrong_gpu); }),
            (dir_ / "parted.yaml").string() +
                ":7:7: mig-configs.balanced[0]: node group 'g' GPU 0: profile 2g.20gb not on "
                "A100-40GB (its profiles: 1g.5gb, 1g.5gb+me, 1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, "
                "7g.40gb)");
  const std::string too_big =
      write("t.yaml",
            scenario("H100-80GB",
                     "{mode: mig, layout: x, mig_config: {mig-configs: {x: [{devices: all, "
                     "mig-enabled: true, mig-devices: {4g.40gb: 1, 3g.40gb: 1, 1g.10gb: 1}}]}}}"));
  EXPECT_EQ(message_of([&] { load_scenario(too_big); }),
            too_big +
                ":11:68: policies[0].sharing.mig_config.mig-configs.x[0]: node group 'g' GPU 0: "
                "the layout needs 8 compute slices, H100-80GB has 7");
  const std::string unknown =
      write("u.yaml", scenario("H100-80GB", "{mode: mig, layout: nope, mig_config: parted.yaml}"));
  EXPECT_EQ(message_of([&] { load_scenario(unknown); }),
            unknown +
                ":11:34: policies[0].sharing.layout: no mig-parted configuration 'nope' "
                "(known: all-disabled, balanced, custom)");
  const std::string no_layout = write("n.yaml", scenario("H100-80GB", "{mode: mig}"));
  EXPECT_EQ(message_of([&] { load_scenario(no_layout); }),
            no_layout +
                ":11:14: policies[0].sharing: mode mig needs 'layout' (a mig-parted "
                "configuration name) and 'mig_config', or 'dynamic: true'");
  const std::string static_time =
      write("r.yaml",
            scenario("H100-80GB",
                     "{mode: mig, layout: balanced, mig_config: parted.yaml, reconfigure_s: 5}"));
  EXPECT_EQ(message_of([&] { load_scenario(static_time); }),
            static_time +
                ":11:84: policies[0].sharing.reconfigure_s: only applies with dynamic: "
                "true");
}

TEST_F(MigParted, PodProfileIsChecked) {
  const std::string s = write(
      "p.yaml",
      "cluster:\n  node_groups:\n    - {name: g, count: 1, gpu_model: H100-80GB, gpus_per_node: "
      "1, cpu_milli: 8000, memory_mib: 64Gi}\n"
      "workload:\n  pods:\n    - {name: a, duration: 10, mig_profile: 1g.9gb}\n"
      "policies:\n  - {placement: first-fit, sharing: {mode: mig, dynamic: true}}\n");
  EXPECT_EQ(
      message_of([&] { load_scenario(s); })
          .rfind(s + ":6:44: workload.pods[0].mig_profile: unknown MIG profile '1g.9gb' (known: "
                     "1g.10gb, ",
                 0),
      0U)
      << message_of([&] { load_scenario(s); });
  const std::string two = write(
      "q.yaml",
      "cluster:\n  node_groups:\n    - {name: g, count: 1, gpu_model: H100-80GB, gpus_per_node: "
      "2, cpu_milli: 8000, memory_mib: 64Gi}\n"
      "workload:\n  pods:\n    - {name: a, duration: 10, gpu_count: 2, mig_profile: 1g.10gb}\n"
      "policies:\n  - {placement: first-fit, sharing: {mode: mig, dynamic: true}}\n");
  EXPECT_EQ(message_of([&] { load_scenario(two); }),
            two +
                ":6:58: workload.pods[0].mig_profile: a MIG profile is for one-GPU pods "
                "(gpu_count: 1)");
}

}  // namespace
}  // namespace slicelab
