// The NVIDIA device plugin's config file as a sharing mode: how timeSlicing and mps map to modes,
// failRequestsGreaterThanOne failing multi-GPU pods, ConfigMap files, located errors, and the
// shipped scenarios/device-plugin.yaml run by the binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>

#include "sim/modes/mps/mps_settings.h"
#include "sim/modes/time_slice/time_slice_settings.h"
#include "sim/scenario/run_policies.h"
#include "sim/scenario/scenario.h"
#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

// Two GPUs; a one-GPU pod and a two-GPU pod, both arriving at once.
const char* const kDpHead = R"(name: t
cluster:
  node_groups:
    - {name: a, count: 1, gpu_model: A100-80GB, gpus_per_node: 2, cpu_milli: 64000, memory_mib: 512Gi}
workload:
  pods:
    - {name: one, duration: 1h, gpu_count: 1, gpu_milli: 500, gpu_memory_mib: 10Gi}
    - {name: two, duration: 1h, gpu_count: 2, gpu_milli: 1000, gpu_memory_mib: 10Gi}
policies:
  - name: p
    placement: best-fit
)";

class DevicePluginConfig : public testing::TempFilesTest {
 protected:
  // A scenario whose one policy's sharing is `sharing` (the text after "sharing: ").
  std::string scenario(const std::string& sharing) {
    return write("s.yaml", std::string(kDpHead) + "    sharing: " + sharing + "\n");
  }
  std::string error_of(const std::string& sharing) {
    const std::string path = scenario(sharing);
    return testing::message_of([&] { load_scenario(path); });
  }
  // The error for a config file `text` named by the scenario, with the folder cut off.
  std::string file_error(const std::string& text) {
    write("dp.yaml", text);
    std::string msg = error_of("{device_plugin_config: dp.yaml}");
    const std::string dir = dir_.string() + "/";
    for (size_t at; (at = msg.find(dir)) != std::string::npos;) msg.erase(at, dir.size());
    return msg;
  }
};

TEST_F(DevicePluginConfig, TimeSlicingBecomesTheTimeSliceMode) {
  write("dp.yaml", R"(version: v1
flags:
  migStrategy: none
  failOnInitError: true
sharing:
  timeSlicing:
    renameByDefault: true
    resources:
      - name: nvidia.com/gpu
        replicas: 6
)");
  const Scenario sc = load_scenario(scenario("{device_plugin_config: dp.yaml}"));
  const SharingConfig& c = sc.policies[0].sharing;
  EXPECT_EQ(c.kind, "time-slice");
  ASSERT_TRUE(c.mode_settings<TimeSliceSettings>());
  EXPECT_EQ(c.mode_settings<TimeSliceSettings>()->replicas, 6);
  ASSERT_TRUE(c.device_plugin);
  EXPECT_EQ(c.device_plugin->source, "dp.yaml");
  EXPECT_EQ(c.device_plugin->advertised, "nvidia.com/gpu.shared");
  // Off by default for time-slicing (config.go sets it only for MPS).
  EXPECT_FALSE(c.device_plugin->fail_requests_greater_than_one);
  const auto mode = make_sharing_mode(c);
  EXPECT_EQ(mode->kind(), "time-slice");
  EXPECT_EQ(mode->capacity_units(), 6);
  EXPECT_EQ(mode->max_gpus_per_pod(), 0);
  EXPECT_NE(mode->describe().find("advertised as nvidia.com/gpu.shared"), std::string::npos)
      << mode->describe();
}

TEST_F(DevicePluginConfig, MpsBecomesTheMpsModeAndRefusesMoreThanOneByDefault) {
  const Scenario sc = load_scenario(
      scenario("{device_plugin: {sharing: {mps: {resources: [{name: gpu, replicas: 3}]}}}, "
               "fault_propagation: 0.25}"));
  const SharingConfig& c = sc.policies[0].sharing;
  EXPECT_EQ(c.kind, "mps");
  const auto mps = c.mode_settings<MpsSettings>();
  ASSERT_TRUE(mps);
  EXPECT_EQ(mps->replicas, 3);
  EXPECT_DOUBLE_EQ(mps->fault_propagation, 0.25);
  ASSERT_TRUE(c.device_plugin);
  EXPECT_EQ(c.device_plugin->resource, "nvidia.com/gpu");  // "gpu" qualified as the plugin does
  EXPECT_TRUE(c.device_plugin->fail_requests_greater_than_one);
  const auto mode = make_sharing_mode(c);
  EXPECT_EQ(mode->max_gpus_per_pod(), 1);
  EXPECT_EQ(mode->capacity_units(), 3);
  // An MPS client's memory: a third of the GPU's 81920 MiB.
  EXPECT_EQ(mode->memory_limit_mib(10240, 81920), 27306);
}

TEST_F(DevicePluginConfig, NoSharingSectionIsWholeCards) {
  const Scenario sc =
      load_scenario(scenario("{device_plugin: {version: v1, flags: {migStrategy: none}}}"));
  EXPECT_EQ(sc.policies[0].sharing.kind, "whole-card");
  EXPECT_EQ(make_sharing_mode(sc.policies[0].sharing)->max_gpus_per_pod(), 0);
}

// failRequestsGreaterThanOne: the plugin fails Allocate for the two-GPU pod; the one-GPU pod
// runs. Without it (or relaxed for MPS) both run.
TEST_F(DevicePluginConfig, FailRequestsGreaterThanOneFailsOnlyMultiGpuPods) {
  struct Case {
    const char* sharing;
    bool two_fails;
  };
  const Case cases[] = {
      {"{device_plugin: {sharing: {timeSlicing: {failRequestsGreaterThanOne: true, resources: "
       "[{name: nvidia.com/gpu, replicas: 4}]}}}}",
       true},
      {"{device_plugin: {sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: "
       "4}]}}}}",
       false},
      {"{device_plugin: {sharing: {mps: {resources: [{name: nvidia.com/gpu, replicas: 4}]}}}}",
       true},
      {"{device_plugin: {sharing: {mps: {failRequestsGreaterThanOne: false, resources: [{name: "
       "nvidia.com/gpu, replicas: 4}]}}}}",
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.sharing);
    const Scenario sc = load_scenario(scenario(c.sharing));
    const RunResult r = run_policy(sc, sc.policies[0]);
    ASSERT_EQ(r.pods.size(), 2U);
    EXPECT_EQ(r.pods[0].status, PodStatus::kCompleted);
    if (c.two_fails) {
      EXPECT_EQ(r.pods[1].status, PodStatus::kFailed);
      EXPECT_EQ(r.pods[1].failure, FailureCause::kAllocationRefused);
      EXPECT_EQ(r.reason_of(1),
                "UnexpectedAdmissionError: device plugin Allocate failed: maximum request size "
                "for shared resources is 1; found 2 (failRequestsGreaterThanOne)");
      EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 0.0);  // at once, as it is bound
    } else {
      EXPECT_EQ(r.pods[1].status, PodStatus::kCompleted);
    }
  }
}

// The config file gives the same run as the mode written with slicelab's own keys.
TEST_F(DevicePluginConfig, SameRunAsTheModeItMapsTo) {
  write("dp.yaml",
        "sharing:\n  timeSlicing:\n    resources:\n      - {name: nvidia.com/gpu, replicas: 4}\n");
  const std::pair<const char*, const char*> pairs[] = {
      {"{device_plugin_config: dp.yaml}", "{mode: time-slice, replicas: 4}"},
      {"{device_plugin: {sharing: {mps: {failRequestsGreaterThanOne: false, resources: [{name: "
       "nvidia.com/gpu, replicas: 2}]}}}}",
       "{mode: mps, replicas: 2}"},
  };
  for (const auto& [plugin, own] : pairs) {
    SCOPED_TRACE(plugin);
    const Scenario a = load_scenario(scenario(plugin));
    const Scenario b = load_scenario(scenario(own));
    const RunResult ra = run_policy(a, a.policies[0]);
    const RunResult rb = run_policy(b, b.policies[0]);
    ASSERT_EQ(ra.pods.size(), rb.pods.size());
    for (size_t p = 0; p < ra.pods.size(); ++p) {
      EXPECT_EQ(ra.pods[p].status, rb.pods[p].status);
      EXPECT_DOUBLE_EQ(ra.pods[p].start_s, rb.pods[p].start_s);
      EXPECT_DOUBLE_EQ(ra.pods[p].finish_s, rb.pods[p].finish_s);
    }
    EXPECT_EQ(ra.sharing.rfind(rb.sharing + "; device plugin config ", 0), 0U) << ra.sharing;
  }
}

TEST_F(DevicePluginConfig, ConfigMapEntriesAndTheirLines) {
  const char* cm = R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: dp
data:
  a: |-
    version: v1
  b: |-
    version: v1
    sharing:
      timeSlicing:
        resources:
        - name: nvidia.com/gpu
          replicas: 8
)";
  write("dp.yaml", cm);
  const Scenario sc = load_scenario(scenario("{device_plugin_config: dp.yaml, config_name: b}"));
  EXPECT_EQ(sc.policies[0].sharing.kind, "time-slice");
  ASSERT_TRUE(sc.policies[0].sharing.mode_settings<TimeSliceSettings>());
  EXPECT_EQ(sc.policies[0].sharing.mode_settings<TimeSliceSettings>()->replicas, 8);
  EXPECT_EQ(sc.policies[0].sharing.device_plugin->source, "dp.yaml data.b");
  // Two entries and no config_name: which one?
  EXPECT_NE(error_of("{device_plugin_config: dp.yaml}")
                .find("holds 2 configs (a, b); name one with config_name"),
            std::string::npos);
  EXPECT_NE(error_of("{device_plugin_config: dp.yaml, config_name: c}")
                .find("no config 'c' in dp.yaml's data (known: a, b)"),
            std::string::npos);
  // An error inside an entry names the ConfigMap file's own line and column (replcas: line 9).
  EXPECT_EQ(file_error("apiVersion: v1\nkind: ConfigMap\ndata:\n  b: |\n    version: v1\n"
                       "    sharing:\n      timeSlicing:\n        resources:\n"
                       "        - {name: nvidia.com/gpu, replcas: 8}\n"),
            "dp.yaml:9:34: sharing.timeSlicing.resources[0]: unknown key 'replcas' (did you mean "
            "'replicas'?)");
}

TEST_F(DevicePluginConfig, ErrorsAreLocatedAndSayWhatIsSupported) {
  const std::string head = "version: v1\nsharing:\n  timeSlicing:\n    resources:\n";
  EXPECT_EQ(file_error("version: v2\n"),
            "dp.yaml:1:10: version: unknown version: v2 (the device plugin's config format is "
            "v1)");
  EXPECT_EQ(file_error("version: v1\nsharing:\n  timeSlicng: {}\n"),
            "dp.yaml:3:3: sharing: unknown key 'timeSlicng' (did you mean 'timeSlicing'?)");
  EXPECT_EQ(file_error(head + "      - {name: nvidia.com/gpu, replicas: 4, devices: [0, 1]}\n"),
            "dp.yaml:5:54: sharing.timeSlicing.resources[0].devices: not supported yet: devices "
            "other than 'all' (sharing a subset of the GPUs); the device plugin itself ignores it "
            "today and shares every GPU: write devices: all or leave it out");
  // NVIDIA's rule (replicas.go, ReplicatedResource.UnmarshalJSON): replicas must be >= 2.
  EXPECT_EQ(file_error(head + "      - {name: nvidia.com/gpu, replicas: 1}\n"),
            "dp.yaml:5:42: sharing.timeSlicing.resources[0].replicas: number of replicas must be "
            ">= 2, found '1' (NVIDIA's replicas.go; to share nothing, leave the resource out)");
  EXPECT_NE(file_error(head + "      - {name: nvidia.com/gpu, replicas: four}\n")
                .find("dp.yaml:5:42: sharing.timeSlicing.resources[0].replicas: expected an "
                      "integer"),
            std::string::npos);
  EXPECT_NE(file_error(head + "      - {name: nvidia.com/gpu, replicas: 2}\n"
                              "      - {name: nvidia.com/mig-1g.10gb, replicas: 4}\n")
                .find("dp.yaml:6:9: sharing.timeSlicing.resources[1]: not supported yet: 2 "
                      "resources"),
            std::string::npos);
  EXPECT_NE(file_error(head + "      - {name: nvidia.com/mig-1g.10gb, replicas: 2}\n")
                .find("not supported yet: sharing MIG devices (nvidia.com/mig-1g.10gb)"),
            std::string::npos);
  EXPECT_NE(file_error("flags: {migStrategy: mixed}\n")
                .find("dp.yaml:1:22: flags.migStrategy: not supported yet: migStrategy 'mixed'"),
            std::string::npos);
  EXPECT_NE(file_error("sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 2}]}, "
                       "mps: {resources: [{name: nvidia.com/gpu, replicas: 2}]}}\n")
                .find("give one of timeSlicing and mps"),
            std::string::npos);
  // A name the plugin and the kubelet would refuse, before: "expected nvidia.com/gpu".
  EXPECT_EQ(file_error(head + "      - {name: nvidia.com/g pu, replicas: 2}\n"),
            "dp.yaml:5:16: sharing.timeSlicing.resources[0].name: resource name "
            "'nvidia.com/g pu' is refused: its name part 'g pu' holds a space (only lower-case "
            "letters, digits, '-' and '.' may appear)");
  EXPECT_EQ(file_error(head + "      - {name: nvidia.com/gpu, rename: gpu.shared, replicas: 2}\n"),
            "dp.yaml:5:40: sharing.timeSlicing.resources[0].rename: not supported yet: rename "
            "to 'gpu.shared' (the device plugin ignores it too and warns); renameByDefault: true "
            "advertises nvidia.com/gpu.shared");
  // The scenario's side: the mode comes from the config; a misspelt key gets its suggestion.
  EXPECT_NE(error_of("{mode: time-slice, device_plugin_config: dp.yaml}")
                .find("the device plugin config decides the mode"),
            std::string::npos);
  EXPECT_NE(error_of("{mode: time-slice, device_plugin_confg: dp.yaml}")
                .find("unknown key 'device_plugin_confg' (did you mean 'device_plugin_config'?)"),
            std::string::npos);
  EXPECT_NE(error_of("{device_plugin_config: missing.yaml}").find("does not exist"),
            std::string::npos);
}

// The shipped scenario, end to end through the binary: every policy runs, and under
// failRequestsGreaterThanOne exactly the multi-GPU pods fail, with the plugin's reason.
TEST_F(DevicePluginConfig, ShippedScenarioRunsEndToEnd) {
  const std::string scenario_path =
      std::string(SLICELAB_SOURCE_DIR) + "/scenarios/device-plugin.yaml";
  const Scenario sc = load_scenario(scenario_path);
  size_t multi = 0;
  for (const PodSpec& p : sc.pods) multi += p.gpu_count > 1 ? 1 : 0;
  ASSERT_GT(multi, 0U);
  const auto out = dir_ / "out";
  const testing::CliRun r =
      testing::run_program(SLICELAB_BINARY,
                           "compare --seeds 1 " + testing::shell_quote(scenario_path) + " --out " +
                               testing::shell_quote(out.string()),
                           dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string pods = testing::read_file(out / "pods.csv");
  size_t refused = 0;
  for (size_t at = 0; (at = pods.find("\nplugin-time-slicing-strict,", at)) != std::string::npos;
       ++at) {
    const size_t end = pods.find('\n', at + 1);
    if (pods.substr(at, end - at).find(",failed,") != std::string::npos &&
        pods.substr(at, end - at).find("UnexpectedAdmissionError") != std::string::npos)
      ++refused;
  }
  EXPECT_EQ(refused, multi);
  const std::string summary = testing::read_file(out / "summary.json");
  EXPECT_NE(summary.find("device plugin config configs/mps.yaml (mps: nvidia.com/gpu x4, "
                         "failRequestsGreaterThanOne)"),
            std::string::npos);
  EXPECT_NE(summary.find("configs/device-plugin-configmap.yaml data.time-slicing-8"),
            std::string::npos);
}

}  // namespace
}  // namespace slicelab
