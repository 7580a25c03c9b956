// The scenario surface of issue 4: MPS and interposer settings, `calibration:` and
// `workload_classes:` reach the policies' sharing configs, and their mistakes are located.
#include <gtest/gtest.h>

#include <string>

#include "sim/modes/interposer/interposer_settings.h"
#include "sim/modes/mps/mps_settings.h"
#include "sim/scenario/scenario.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

const char* const kHead = R"(name: t
cluster:
  node_groups:
    - {name: a, count: 1, gpu_model: A100-80GB, gpus_per_node: 2, cpu_milli: 64000, memory_mib: 512Gi}
workload:
  pods:
    - {name: p, duration: 1h, gpu_count: 1, gpu_milli: 500, class: inference}
)";

class SharingScenario : public testing::TempFilesTest {
 protected:
  std::string scenario(const std::string& extra) { return write("s.yaml", kHead + extra); }
  std::string error_of(const std::string& extra) {
    const std::string path = scenario(extra);
    std::string msg = testing::message_of([&] { load_scenario(path); });
    if (msg.rfind(path, 0) == 0) msg = "s.yaml" + msg.substr(path.size());
    return msg;
  }
};

TEST_F(SharingScenario, CalibrationAndClassesReachEveryInterferingPolicy) {
  write("cal.yaml", R"(source: "unit test"
classes:
  inference: {sm: 0.4, bandwidth: 0.3, launch_khz: 8}
coefficients:
  mps: {bandwidth: 0.7, launch: 0.01}
  interposer: {bandwidth: 0.2, launch: 0.02}
interposer_launch_overhead_ns: 60
)");
  const Scenario sc = load_scenario(scenario(R"(calibration: cal.yaml
workload_classes:
  inference: {sm: 0.5, bandwidth: 0.3}
  batch: {sm: 1.0, memory_mib: 20Gi}
policies:
  - {name: whole, placement: first-fit}
  - name: mps
    placement: first-fit
    sharing: {mode: mps, replicas: 4, fault_propagation: 1, client_fault_probability: 0.01}
  - name: mps-pod
    placement: first-fit
    sharing: {mode: mps}
  - name: ip
    placement: first-fit
    sharing: {mode: interposer, limiter_window: 0.5s}
  - name: ip-own
    placement: first-fit
    sharing: {mode: interposer, launch_overhead_ns: 10}
)"));
  EXPECT_EQ(sc.calibration, "cal.yaml: unit test");
  ASSERT_EQ(sc.classes.all().size(), 2U);
  EXPECT_DOUBLE_EQ(sc.classes[*sc.classes.index_of("inference")].sm, 0.5);  // overridden
  EXPECT_EQ(sc.classes[*sc.classes.index_of("batch")].memory_mib, 20480);
  EXPECT_FALSE(sc.policies[0].sharing.interference.any());
  const SharingConfig& mps = sc.policies[1].sharing;
  const auto mps_settings = mps.mode_settings<MpsSettings>();
  ASSERT_TRUE(mps_settings);
  EXPECT_EQ(mps_settings->replicas, 4);
  EXPECT_DOUBLE_EQ(mps_settings->fault_propagation, 1.0);
  EXPECT_DOUBLE_EQ(mps_settings->client_fault_probability, 0.01);
  EXPECT_DOUBLE_EQ(mps.interference.bandwidth, 0.7);
  const auto per_pod = sc.policies[2].sharing.mode_settings<MpsSettings>();
  EXPECT_EQ(per_pod ? per_pod->replicas : 0, 0);  // per-pod limits
  const SharingConfig& ip = sc.policies[3].sharing;
  const auto ip_settings = ip.mode_settings<InterposerSettings>();
  ASSERT_TRUE(ip_settings);
  EXPECT_DOUBLE_EQ(ip_settings->limiter_window_s, 0.5);
  EXPECT_EQ(ip_settings->launch_overhead_ns, 60.0);  // from the calibration
  EXPECT_DOUBLE_EQ(ip.interference.launch, 0.02);
  const auto own = sc.policies[4].sharing.mode_settings<InterposerSettings>();
  ASSERT_TRUE(own);
  EXPECT_EQ(own->launch_overhead_ns, 10.0);  // its own wins
}

TEST_F(SharingScenario, MistakesAreLocated) {
  EXPECT_EQ(error_of(R"(policies:
  - {name: x, placement: first-fit, sharing: {mode: interposer, fault_propagation: 0.5}}
)"),
            "s.yaml:9:84: policies[0].sharing.fault_propagation: only applies to mps, not "
            "interposer");
  EXPECT_EQ(error_of(R"(policies:
  - {name: x, placement: first-fit, sharing: {mode: mps, replicas: 49}}
)"),
            "s.yaml:9:68: policies[0].sharing.replicas: expected an integer in 1..48, found '49'");
  EXPECT_EQ(error_of(R"(calibration: missing.yaml
policies: [{name: x, placement: first-fit}]
)"),
            "s.yaml:8:14: calibration: calibration file '" + (dir_ / "missing.yaml").string() +
                "' does not exist");
  EXPECT_EQ(error_of(R"(workload_classes:
  inference: {sm: 2}
policies: [{name: x, placement: first-fit}]
)"),
            "s.yaml:9:19: workload_classes.inference.sm: expected a number in 0.001..1, found '2'");
}

}  // namespace
}  // namespace slicelab
