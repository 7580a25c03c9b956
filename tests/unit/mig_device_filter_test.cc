// mig-parted's device-filter: PCI device IDs (one as a string, or a list) select the GPU models an
// entry applies to, so one file lays out a mixed fleet; unknown or malformed IDs are named.
#include <gtest/gtest.h>

#include <string>

#include "sim/modes/mig/mig_parted.h"
#include "sim/modes/mig/mig_settings.h"
#include "sim/scenario/run_policies.h"
#include "sim/scenario/scenario.h"
#include "tests/support/temp_files.h"
#include "workloads/hardware/pci_device_ids.h"

namespace slicelab {
namespace {

using testing::message_of;

class MigDeviceFilter : public testing::TempFilesTest {
 protected:
  // The error of a one-entry mig-parted file whose device-filter is `filter`, folder cut off.
  std::string filter_error(const std::string& filter) {
    const std::string path =
        write("f.yaml", "version: v1\nmig-configs:\n  x:\n    - device-filter: " + filter +
                            "\n      devices: all\n      mig-enabled: false\n");
    std::string msg = message_of([&] { load_mig_parted_file(path); });
    if (msg.rfind(path, 0) == 0) msg = "f.yaml" + msg.substr(path.size());
    return msg;
  }
};

TEST_F(MigDeviceFilter, ListAndStringFormsSelectCatalogModels) {
  const MigPartedConfig c = load_mig_parted_file(write("p.yaml", R"(version: v1
mig-configs:
  mixed:
    # A100-80GB SXM4 and PCIe, H100-80GB SXM5: two models
    - device-filter: ["0x20B210DE", "0x20B510DE", "0x233010DE"]
      devices: all
      mig-enabled: true
      mig-devices: {"3g.40gb": 2}
    - device-filter: "0x20b010de"
      devices: [1]
      mig-enabled: true
      mig-devices: {"1g.5gb": 7}
    # H800 (0x2324): a known ID of a GPU the catalog does not model, so no node group
    - device-filter: ["0x232410DE"]
      devices: all
      mig-enabled: false
)"));
  const auto& rules = c.configs.at("mixed");
  ASSERT_EQ(rules.size(), 3U);
  EXPECT_EQ(rules[0].device_filter,
            (std::vector<std::string>{"0x20B210DE", "0x20B510DE", "0x233010DE"}));
  EXPECT_EQ(rules[0].filter_models, (std::vector<std::string>{"A100-80GB", "H100-80GB"}));
  EXPECT_EQ(rules[1].filter_models, (std::vector<std::string>{"A100-40GB"}));
  EXPECT_TRUE(rules[2].filter_models.empty());
  EXPECT_TRUE(rules[0].applies_to(3, "A100-80GB"));
  EXPECT_TRUE(rules[0].applies_to(0, "H100-80GB"));
  EXPECT_FALSE(rules[0].applies_to(0, "A100-40GB"));
  EXPECT_FALSE(rules[0].applies_to(0, "L4"));
  // Both the filter and the index list must name the GPU.
  EXPECT_TRUE(rules[1].applies_to(1, "A100-40GB"));
  EXPECT_FALSE(rules[1].applies_to(0, "A100-40GB"));
  EXPECT_FALSE(rules[1].applies_to(1, "A100-80GB"));
  for (const char* model : {"A100-40GB", "A100-80GB", "H100-80GB", "H200", "L4"})
    EXPECT_FALSE(rules[2].applies_to(0, model)) << model;
}

TEST_F(MigDeviceFilter, IdsAreParsedAsMigPartedWritesThem) {
  std::string error;
  const PciGpuId* a = find_pci_gpu_id("0x20B210DE", error);
  ASSERT_NE(a, nullptr) << error;
  EXPECT_EQ(a->gpu_model, "A100-80GB");
  // Lower case, and a subsystem ID (which the simulator cannot tell apart) after ':'.
  const PciGpuId* h = find_pci_gpu_id("0x233010de:0x16C010DE", error);
  ASSERT_NE(h, nullptr) << error;
  EXPECT_EQ(h->gpu_model, "H100-80GB");
  EXPECT_EQ(find_pci_gpu_id("0x27B810DE", error)->gpu_model, "L4");
  EXPECT_EQ(find_pci_gpu_id("0x233510DE", error)->gpu_model, "H200");
  EXPECT_EQ(find_pci_gpu_id("0x20B710DE", error)->gpu_model, "A30");
  // Every modelled entry names a model with that exact catalog spelling, and no ID twice.
  for (size_t i = 0; i < pci_gpu_ids().size(); ++i)
    for (size_t j = i + 1; j < pci_gpu_ids().size(); ++j)
      EXPECT_NE(pci_gpu_ids()[i].device, pci_gpu_ids()[j].device) << pci_gpu_ids()[i].product;
}

TEST_F(MigDeviceFilter, UnknownAndMalformedIdsAreNamed) {
  EXPECT_EQ(filter_error("\"0x123410DE\"").substr(0, 106),
            "f.yaml:4:22: mig-configs.x[0].device-filter: unknown PCI device ID '0x123410DE' "
            "(device 0x1234); known IDs");
  EXPECT_NE(filter_error("\"0x123410DE\"").find("0x20B210DE A100-80GB"), std::string::npos);
  EXPECT_EQ(filter_error("[\"0x20B210DE\", \"0x20B21002\"]"),
            "f.yaml:4:37: mig-configs.x[0].device-filter[1]: '0x20B21002' is not an NVIDIA device "
            "(vendor 0x1002, NVIDIA's is 0x10DE)");
  EXPECT_NE(filter_error("A100-SXM4-40GB").find("'A100-SXM4-40GB' is not a PCI device ID"),
            std::string::npos);
  EXPECT_NE(filter_error("[]").find("needs at least one PCI device ID"), std::string::npos);
  EXPECT_NE(filter_error("{a: 1}").find("expected a string or a list of strings"),
            std::string::npos);
  const std::string typo =
      write("t.yaml",
            "version: v1\nmig-configs:\n  x:\n    - device-filer: \"0x20B210DE\"\n"
            "      devices: all\n      mig-enabled: false\n");
  EXPECT_NE(message_of([&] {
              load_mig_parted_file(typo);
            }).find("unknown key 'device-filer' (did you mean 'device-filter'?)"),
            std::string::npos);
}

// A run on three models: each entry lays out only its model's GPUs, the L4 stays a whole card.
TEST_F(MigDeviceFilter, EntriesApplyOnlyToMatchingModelsInARun) {
  write("parted.yaml", R"(version: v1
mig-configs:
  mixed:
    - device-filter: ["0x20B210DE", "0x20B510DE"]
      devices: all
      mig-enabled: true
      mig-devices: {"3g.40gb": 2}
    - device-filter: "0x20B010DE"
      devices: all
      mig-enabled: true
      mig-devices: {"1g.5gb": 7}
)");
  const std::string head = R"(name: t
cluster:
  node_groups:
    - {name: a40, count: 1, gpu_model: A100-40GB, gpus_per_node: 1, cpu_milli: 64000, memory_mib: 512Gi}
    - {name: a80, count: 1, gpu_model: A100-80GB, gpus_per_node: 1, cpu_milli: 64000, memory_mib: 512Gi}
    - {name: l4, count: 1, gpu_model: L4, gpus_per_node: 1, cpu_milli: 64000, memory_mib: 512Gi}
workload:
  pods:
    - {name: small, duration: 1h, gpu_count: 1, mig_profile: 1g.5gb}
    - {name: half, duration: 1h, gpu_count: 1, mig_profile: 3g.40gb}
    - {name: whole, duration: 1h, gpu_count: 1, gpu_milli: 1000, gpu_memory_mib: 20Gi}
policies:
  - name: m
    placement: best-fit
    sharing: {mode: mig, layout: mixed, mig_config: parted.yaml}
)";
  const Scenario sc = load_scenario(write("s.yaml", head));
  const RunResult r = run_policy(sc, sc.policies[0]);
  ASSERT_EQ(r.pods.size(), 3U);
  for (const PodOutcome& o : r.pods) EXPECT_EQ(o.status, PodStatus::kCompleted);
  EXPECT_EQ(r.pods[0].node, 0);  // 1g.5gb exists only on the A100-40GB
  EXPECT_EQ(r.pods[1].node, 1);  // 3g.40gb only on the A100-80GB
  EXPECT_EQ(r.pods[2].node, 2);  // a whole GPU only on the L4, which no entry names

  // Without its filter, the first entry would name the L4 too, which has no MIG.
  std::string unfiltered = head;
  unfiltered.replace(unfiltered.find("parted.yaml"), 11, "plain.yaml");
  write("plain.yaml",
        "version: v1\nmig-configs:\n  mixed:\n    - devices: all\n      mig-enabled: true\n"
        "      mig-devices: {\"1g.10gb\": 1}\n");
  EXPECT_NE(message_of([&] {
              load_scenario(write("u.yaml", unfiltered));
            }).find("node group 'l4': L4 has no MIG"),
            std::string::npos);
}

// The shipped mixed-fleet example loads, and each configuration fits each model it names.
TEST_F(MigDeviceFilter, ShippedMixedFleetScenarioLoads) {
  const Scenario sc =
      load_scenario(std::string(SLICELAB_SOURCE_DIR) + "/scenarios/mig-mixed-fleet.yaml");
  ASSERT_EQ(sc.policies.size(), 4U);
  const MigSettings& balanced = *sc.policies[1].sharing.mode_settings<MigSettings>();
  ASSERT_EQ(balanced.rules.size(), 2U);
  EXPECT_EQ(balanced.rules[0].filter_models, (std::vector<std::string>{"A100-80GB", "H100-80GB"}));
  EXPECT_EQ(balanced.rules[1].filter_models, (std::vector<std::string>{"A100-40GB"}));
  const RunResult r = run_policy(sc, sc.policies[1]);
  EXPECT_EQ(r.summary.failed, 0U);
}

}  // namespace
}  // namespace slicelab
