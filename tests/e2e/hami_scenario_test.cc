// Sharing mode hami from the scenario's side: its settings and their errors, HAMi's placement
// refused under another mode, and the shipped scenarios/hami.yaml run by the binary, where no
// pod under HAMi's scheduler fails because its neighbours hold its memory.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "sim/modes/hami/hami_settings.h"
#include "sim/scenario/scenario.h"
#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace hami_scenario_test {

namespace fs = std::filesystem;
using testing::message_of;

class HamiScenario : public testing::TempFilesTest {
 protected:
  std::string scenario(const std::string& policies) {
    return write("s.yaml", R"(name: h
cluster:
  node_groups:
    - {name: l4, count: 1, gpu_model: L4, gpus_per_node: 4, cpu_milli: 64000, memory_mib: 256Gi}
workload:
  pods:
    - {name: a, duration: 1h, gpu_count: 1, gpu_milli: 250, gpu_memory_mib: 10Gi, gpu_memory_used_mib: 6Gi}
    - {name: b, duration: 1h, gpu_count: 1, gpu_memory_percent: 40}
policies:
)" + policies);
  }
};

TEST_F(HamiScenario, SettingsAreReadWithHamisDefaults) {
  const Scenario sc = load_scenario(scenario(R"(  - name: tuned
    placement: hami
    sharing: {mode: hami, device_split_count: 4, device_memory_scaling: 1.5, device_core_scaling: 2, node_policy: spread, gpu_policy: binpack}
  - {name: plain, placement: hami-binpack, sharing: hami}
)"));
  ASSERT_EQ(sc.policies.size(), 2U);
  const HamiSettings& t = *sc.policies[0].sharing.mode_settings<HamiSettings>();
  EXPECT_EQ(sc.policies[0].sharing.kind, "hami");
  EXPECT_EQ(t.device_split_count, 4);
  EXPECT_DOUBLE_EQ(t.device_memory_scaling, 1.5);
  EXPECT_DOUBLE_EQ(t.device_core_scaling, 2.0);
  EXPECT_EQ(t.node_policy, HamiPolicy::kSpread);
  EXPECT_EQ(t.gpu_policy, HamiPolicy::kBinpack);
  const HamiSettings& d = *sc.policies[1].sharing.mode_settings<HamiSettings>();
  EXPECT_EQ(d.device_split_count, 10);
  EXPECT_DOUBLE_EQ(d.device_memory_scaling, 1.0);
  EXPECT_EQ(d.node_policy, HamiPolicy::kBinpack);  // cmd/scheduler/main.go's defaults
  EXPECT_EQ(d.gpu_policy, HamiPolicy::kSpread);
  EXPECT_EQ(sc.pods[0].gpu_memory_used_mib, 6144);
  EXPECT_EQ(sc.pods[1].gpu_memory_percent, 40);
}

TEST_F(HamiScenario, BadSettingsNameTheKey) {
  EXPECT_NE(message_of([&] {
              load_scenario(
                  scenario("  - {placement: hami, sharing: {mode: hami, device_split_cont: 4}}\n"));
            }).find("unknown key 'device_split_cont' (did you mean 'device_split_count'?)"),
            std::string::npos);
  EXPECT_NE(
      message_of([&] {
        load_scenario(scenario("  - {placement: hami, sharing: {mode: hami, gpu_policy: pack}}\n"));
      }).find("unknown HAMi policy 'pack' (known: binpack, spread)"),
      std::string::npos);
  EXPECT_NE(message_of([&] {
              load_scenario(scenario(
                  "  - {placement: hami, sharing: {mode: hami, device_memory_scaling: 20}}\n"));
            }).find("device_memory_scaling"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              load_scenario(scenario("  - {placement: hami-spread, sharing: gpu-share}\n"));
            })
                .find("placement 'hami-spread' is HAMi's scheduler and needs sharing mode hami "
                      "(this policy's sharing is gpu-share)"),
            std::string::npos);
}

// The issue's scenario: HAMi's scheduler checks each GPU's memory, so no pod fails for memory
// its neighbours hold (FGD on GPU shares, which checks no memory, does put pods there).
TEST(ShippedHamiScenario, NoPodFailsForItsNeighboursMemoryUnderHami) {
  const fs::path out = fs::temp_directory_path() / ("slicelab-hami-" + std::to_string(::getpid()));
  fs::create_directories(out);
  const auto r = testing::run_program(
      SLICELAB_BINARY,
      "compare --seeds 1 " +
          testing::shell_quote(std::string(SLICELAB_SOURCE_DIR) + "/scenarios/hami.yaml") +
          " --out " + testing::shell_quote((out / "results").string()),
      out);
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream pods(testing::read_file(out / "results" / "pods.csv"));
  std::string line;
  std::map<std::string, int> failed, rows;
  std::getline(pods, line);  // header: policy,pod,class,status,...
  while (std::getline(pods, line)) {
    const std::string policy = line.substr(0, line.find(','));
    ++rows[policy];
    if (line.find(",failed,") != std::string::npos) ++failed[policy];
  }
  fs::remove_all(out);
  for (const char* hami : {"hami-binpack", "hami-spread"}) {
    EXPECT_EQ(rows[hami], 320) << hami;
    EXPECT_EQ(failed[hami], 0) << hami;
  }
  EXPECT_GT(failed["fgd"], 0);  // the comparison the issue was about
}

}  // namespace hami_scenario_test
}  // namespace slicelab
