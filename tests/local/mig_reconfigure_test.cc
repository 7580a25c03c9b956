// --allow-mig-reconfigure's planning without a GPU: which GPUs get which instances, in which
// order and at which starts, what nvidia-smi is told, and the refusals that name their reason.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "backends/local/mig_reconfigure.h"

namespace slicelab {
namespace {

DetectedGpu gpu(unsigned index, const std::string& name, uint64_t mib, bool mig,
                const std::vector<std::string>& profiles = {}) {
  DetectedGpu g;
  g.index = index;
  g.name = name;
  g.memory_bytes = mib << 20;
  g.mig_enabled = mig;
  for (const std::string& p : profiles) g.mig_instances.push_back({"MIG-x", p, 0});
  return g;
}

MigSettings layout(std::vector<std::pair<std::string, int>> devices, std::vector<int> on = {},
                   bool enabled = true) {
  MigSettings s;
  s.layout = "test";
  MigDeviceRule r;
  r.devices = std::move(on);
  r.mig_enabled = enabled;
  r.mig_devices = std::move(devices);
  s.rules.push_back(r);
  return s;
}

std::string error_of(const std::vector<DetectedGpu>& gpus, const MigSettings* s) {
  try {
    plan_mig_layout(gpus, s);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(MigReconfigure, NvmlNamesMapToTheTablesByNameAndMemory) {
  EXPECT_EQ(mig_model_for(gpu(0, "NVIDIA A100-SXM4-80GB", 81920, true)), "A100-80GB");
  EXPECT_EQ(mig_model_for(gpu(0, "NVIDIA A100 80GB PCIe", 81920, true)), "A100-80GB");
  EXPECT_EQ(mig_model_for(gpu(0, "NVIDIA A100-PCIE-40GB", 40960, true)), "A100-40GB");
  EXPECT_EQ(mig_model_for(gpu(0, "NVIDIA H100 80GB HBM3", 81559, true)), "H100-80GB");
  EXPECT_EQ(mig_model_for(gpu(0, "NVIDIA H200", 143771, true)), "H200");
  EXPECT_EQ(mig_model_for(gpu(0, "NVIDIA A30", 24576, true)), "A30");
  // H100 NVL (94 GB) has its own profiles: no table, nvidia-smi judges the layout.
  EXPECT_EQ(mig_model_for(gpu(0, "NVIDIA H100 NVL", 95830, true)), "");
  EXPECT_EQ(mig_model_for(gpu(0, "Tesla T4", 15360, false)), "");
}

TEST(MigReconfigure, AKnownGpuGetsTheValidatorsPlacementsLargestFirst) {
  const MigSettings s = layout({{"1g.10gb", 2}, {"2g.20gb", 1}, {"3g.40gb", 1}});
  const auto plans = plan_mig_layout({gpu(0, "NVIDIA A100-SXM4-80GB", 81920, true)}, &s);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].instances,
            (std::vector<std::string>{"3g.40gb:4", "2g.20gb:0", "1g.10gb:2", "1g.10gb:3"}))
      << "the starts place_layout chose (mig_tests pin its rules)";
  EXPECT_FALSE(plans[0].unchanged);
  EXPECT_FALSE(plans[0].holds_instances);
  // NVML lists no instance, but a GPU instance without compute instances would not be listed:
  // the destroys run anyway, and "nothing to destroy" is not an error.
  const auto cmds = mig_commands(plans[0], "/x/nvidia-smi");
  ASSERT_EQ(cmds.size(), 3u);
  EXPECT_EQ(cmds[0].argv, (std::vector<std::string>{"/x/nvidia-smi", "mig", "-i", "0", "-dci"}));
  EXPECT_EQ(cmds[1].argv, (std::vector<std::string>{"/x/nvidia-smi", "mig", "-i", "0", "-dgi"}));
  EXPECT_TRUE(cmds[0].may_fail && cmds[1].may_fail);
  EXPECT_EQ(cmds[2].argv,
            (std::vector<std::string>{"/x/nvidia-smi", "mig", "-i", "0", "-cgi",
                                      "3g.40gb:4,2g.20gb:0,1g.10gb:2,1g.10gb:3", "-C"}));
  EXPECT_FALSE(cmds[2].may_fail);
}

TEST(MigReconfigure, ExistingInstancesAreKeptWhenTheyAreTheLayoutElseDestroyedFirst) {
  const MigSettings s = layout({{"3g.40gb", 2}});
  const auto same =
      plan_mig_layout({gpu(0, "NVIDIA H100 80GB HBM3", 81559, true, {"3g.40gb", "3g.40gb"})}, &s);
  EXPECT_TRUE(same[0].unchanged);
  EXPECT_TRUE(mig_commands(same[0], "nvidia-smi").empty());
  const auto other =
      plan_mig_layout({gpu(3, "NVIDIA H100 80GB HBM3", 81559, true, {"7g.80gb"})}, &s);
  EXPECT_FALSE(other[0].unchanged);
  const auto cmds = mig_commands(other[0], "nvidia-smi");
  ASSERT_EQ(cmds.size(), 3u);
  EXPECT_EQ(cmds[0].argv, (std::vector<std::string>{"nvidia-smi", "mig", "-i", "3", "-dci"}));
  EXPECT_EQ(cmds[1].argv, (std::vector<std::string>{"nvidia-smi", "mig", "-i", "3", "-dgi"}));
  EXPECT_FALSE(cmds[0].may_fail || cmds[1].may_fail);  // it holds instances: they must go
  EXPECT_EQ(cmds[2].argv.at(5), "3g.40gb:0,3g.40gb:4");
}

TEST(MigReconfigure, OnlyTheGpusARuleEnablesArePlanned) {
  const MigSettings s = layout({{"7g.80gb", 1}}, {1});
  const auto plans = plan_mig_layout(
      {gpu(0, "NVIDIA A100-SXM4-80GB", 81920, false), gpu(1, "NVIDIA A100-SXM4-80GB", 81920, true)},
      &s);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].gpu, 1u);
  const MigSettings off = layout({{"7g.80gb", 1}}, {}, false);
  EXPECT_NE(error_of({gpu(0, "NVIDIA A100-SXM4-80GB", 81920, true)}, &off)
                .find("applies to none of this machine's GPUs"),
            std::string::npos);
}

TEST(MigReconfigure, UnknownModelsAreOrderedBySizeForNvidiaSmi) {
  const MigSettings s = layout({{"1g.12gb", 2}, {"3g.47gb", 1}});
  const auto plans = plan_mig_layout({gpu(0, "NVIDIA H100 NVL", 95830, true)}, &s);
  EXPECT_EQ(plans[0].instances, (std::vector<std::string>{"3g.47gb", "1g.12gb", "1g.12gb"}));
}

TEST(MigReconfigure, RefusalsNameTheGpuAndTheWayOut) {
  const MigSettings s = layout({{"3g.40gb", 2}});
  EXPECT_EQ(error_of({gpu(2, "NVIDIA A100-SXM4-80GB", 81920, false)}, &s),
            "MIG: GPU 2 (NVIDIA A100-SXM4-80GB) has MIG mode off; turning it on needs the GPU "
            "idle and reset, which slicelab does not do: run 'sudo nvidia-smi -i 2 -mig 1' (then "
            "reset the GPU) first");
  EXPECT_NE(error_of({gpu(0, "NVIDIA A100-SXM4-80GB", 81920, true)}, nullptr)
                .find("the policy names no MIG layout"),
            std::string::npos);
  const MigSettings too_big = layout({{"4g.40gb", 1}, {"3g.40gb", 2}});
  const std::string e = error_of({gpu(0, "NVIDIA A100-SXM4-80GB", 81920, true)}, &too_big);
  EXPECT_EQ(e.rfind("MIG: GPU 0 (NVIDIA A100-SXM4-80GB): the layout does not fit: ", 0), 0u) << e;
}

TEST(MigReconfigure, AFailingCommandStopsWithItsOutput) {
  MigGpuPlan p;
  p.gpu = 0;
  p.instances = {"7g.80gb:0"};
  try {
    apply_mig_plans({p}, "/bin/false");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "MIG: '/bin/false mig -i 0 -cgi 7g.80gb:0 -C' failed (exit code 1)", 0),
              0u)
        << e.what();
  }
  p.holds_instances = true;  // now the destroys must succeed: the first failure stops it
  try {
    apply_mig_plans({p}, "/bin/false");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("MIG: '/bin/false mig -i 0 -dci' failed", 0), 0u)
        << e.what();
  }
  EXPECT_THROW(apply_mig_plans({p}, ""), std::runtime_error);  // no nvidia-smi found
  p.unchanged = true;  // nothing to run: no nvidia-smi needed
  EXPECT_EQ(apply_mig_plans({p}, ""),
            (std::vector<std::string>{"GPU 0: already has the layout (7g.80gb:0)"}));
}

}  // namespace
}  // namespace slicelab
