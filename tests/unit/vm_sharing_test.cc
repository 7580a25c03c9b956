// Pins down the VM sharing modes with hand-computed cases: vGPU profile tables and the profile
// rule, one type per GPU and its max count in an engine run, each vGPU scheduler's shares
// through the one rate solver, and passthrough's exclusivity and boot delay.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "sim/modes/mode_registry.h"
#include "sim/modes/vm/vgpu_profiles.h"
#include "sim/modes/vm/vgpu_sharing.h"
#include "sim/modes/vm/vgpu_state.h"
#include "sim/modes/vm/vm_settings.h"
#include "sim/scenario/scenario.h"
#include "sim/sharing/gpu_rate_solver.h"
#include "tests/support/sim_fixtures.h"
#include "workloads/input_error.h"

namespace slicelab {
namespace {

using testing::catalog;
using testing::cluster_of;
using testing::node_group;
using testing::pod;
using testing::run;

constexpr int64_t kGiB = 1024;

SharingConfig vm_config(std::string kind, VmSettings s) {
  SharingConfig c;
  c.kind = std::move(kind);
  c.set_mode_settings(std::make_shared<const VmSettings>(std::move(s)));
  return c;
}

VmSettings vm_settings(VgpuScheduler scheduler, double boot_s = 0) {
  VmSettings s;
  s.scheduler = scheduler;
  s.boot_s = boot_s;
  return s;
}

// ---- profile tables --------------------------------------------------------------------------

TEST(VgpuProfiles, EveryCountDividesTheUnitsAndFitsTheGpuMemory) {
  for (const VgpuTable& t : vgpu_tables()) {
    SCOPED_TRACE(std::string(t.gpu));
    ASSERT_FALSE(t.profiles.empty());
    int prev_fb = 1 << 30;
    for (const VgpuProfile& p : t.profiles) {
      EXPECT_EQ(kVgpuUnitsPerGpu % p.max_per_gpu, 0) << p.name;
      EXPECT_LE(p.max_per_gpu, kMaxVgpusPerGpu) << p.name;
      EXPECT_LT(p.framebuffer_gb, prev_fb) << "largest first: " << p.name;
      prev_fb = p.framebuffer_gb;
      EXPECT_EQ(p.size(), std::to_string(p.framebuffer_gb) + "C") << p.name;
      // The vGPUs of one type never hold more frame buffer than the card has (GB as marketed).
      EXPECT_LE(p.framebuffer_gb * p.max_per_gpu, t.profiles.front().framebuffer_gb) << p.name;
    }
    // The largest type is the whole card in GB as marketed (the L4's 24 GB shows as 23034 MiB).
    if (const GpuModel* m = catalog().find(t.gpu)) {
      EXPECT_NEAR(t.profiles.front().framebuffer_gb, static_cast<double>(m->memory_mib) / 1024,
                  1.6);
    }
  }
  for (const char* model : {"A100-80GB", "A10", "L4", "L40S", "H100-80GB"}) {
    EXPECT_NE(vgpu_table_for(model), nullptr) << model;
  }
  EXPECT_EQ(vgpu_table_for("P100"), nullptr);
  EXPECT_TRUE(is_known_vgpu_size("10C"));
  EXPECT_FALSE(is_known_vgpu_size("7C"));
}

TEST(VgpuProfiles, PodTakesTheSmallestFrameBufferThatHoldsItsMemoryAndShare) {
  const VgpuTable& a100 = *vgpu_table_for("A100-80GB");
  auto name = [&](const PodSpec& p, std::string_view fixed = {}) -> std::string {
    const int8_t q = VgpuState::profile_for(a100, p, fixed);
    return q < 0 ? "none" : std::string(a100.profiles[static_cast<size_t>(q)].name);
  };
  // 8 GiB, 100 milli: 8C (8 GB, 10 per GPU) holds the memory and 1000/10 = 100 milli.
  EXPECT_EQ(name(pod("a", 0, 1).milli(100).gpu_mem(8 * kGiB)), "A100D-8C");
  // 8 GiB, 250 milli: 8C and 10C give only 100 and 125 milli; 16C gives 200; 20C gives 250.
  EXPECT_EQ(name(pod("b", 0, 1).milli(250).gpu_mem(8 * kGiB)), "A100D-20C");
  // 30 GiB: 40C; a whole-GPU pod: 80C.
  EXPECT_EQ(name(pod("c", 0, 1).milli(500).gpu_mem(30 * kGiB)), "A100D-40C");
  EXPECT_EQ(name(pod("d", 0, 1).gpu_mem(36 * kGiB)), "A100D-80C");
  // More memory than the card: none. A fixed size wins over the rule.
  EXPECT_EQ(name(pod("e", 0, 1).milli(100).gpu_mem(81 * kGiB)), "none");
  EXPECT_EQ(name(pod("f", 0, 1).gpu_mem(36 * kGiB), "10C"), "A100D-10C");
  EXPECT_EQ(name(pod("g", 0, 1), "48C"), "none");
}

// ---- one type per GPU, at most its max count ---------------------------------------------

TEST(VgpuEngine, OneTypePerGpuAndAtMostItsMaxCount) {
  // One A100-80GB. Nine 8C pods (10 per GPU) of 100 milli at t=0..8, each 100 s, and one 20C pod
  // (250 milli) at t=0.5. The 20C pod cannot join a GPU hosting 8C: it waits until the GPU is
  // empty. All 8C pods fit (9 <= 10), best effort, summed demand 0.9 <= 1: solo speed.
  std::vector<PodSpec> pods;
  for (int i = 0; i < 9; ++i)
    pods.push_back(pod("s" + std::to_string(i), i, 100).milli(100).gpu_mem(8 * kGiB));
  pods.push_back(pod("big", 0.5, 100).milli(250).gpu_mem(8 * kGiB));
  // Backfill: the 8C pods behind the waiting 20C pod may pass it.
  EngineConfig config = testing::quiet_config();
  config.backfill = true;
  const auto r = run(cluster_of({node_group("n", 1, "A100-80GB", 1)}), pods, "first-fit",
                     vm_config("vgpu", vm_settings(VgpuScheduler::kBestEffort)), config);
  for (size_t i = 0; i < 9; ++i) {
    EXPECT_DOUBLE_EQ(r.pods[i].start_s, static_cast<double>(i)) << i;
    EXPECT_DOUBLE_EQ(r.pods[i].finish_s, i + 100.0) << i;
  }
  EXPECT_DOUBLE_EQ(r.pods[9].start_s, 108.0);  // the last 8C vGPU ends at 108
  EXPECT_DOUBLE_EQ(r.pods[9].finish_s, 208.0);
}

TEST(VgpuEngine, MaxCountHoldsBackTheNextVgpuOfTheType) {
  // 20C holds 4 per GPU: the fifth 20C pod waits for the first to end, although 4 x 250 milli
  // leave no idle time to share anyway. Demand 0.25 each, total 1: solo speed.
  std::vector<PodSpec> pods;
  for (int i = 0; i < 5; ++i)
    pods.push_back(pod("q" + std::to_string(i), i, 50).milli(250).gpu_mem(16 * kGiB));
  const auto r = run(cluster_of({node_group("n", 1, "A100-80GB", 1)}), pods, "first-fit",
                     vm_config("vgpu", vm_settings(VgpuScheduler::kBestEffort)));
  EXPECT_DOUBLE_EQ(r.pods[4].start_s, 50.0);
  EXPECT_DOUBLE_EQ(r.pods[4].finish_s, 100.0);
  EXPECT_EQ(r.summary.completed, 5U);
}

TEST(VgpuEngine, FrameBufferIsTheVgpusMemory) {
  // A fixed 10C profile: a pod asking 12 GiB fails at start in its 10 GB frame buffer.
  VmSettings s = vm_settings(VgpuScheduler::kBestEffort);
  s.profile = "10C";
  const auto r = run(cluster_of({node_group("n", 1, "A100-80GB", 1)}),
                     {pod("fits", 0, 10).milli(100).gpu_mem(10 * kGiB),
                      pod("big", 0, 10).milli(100).gpu_mem(12 * kGiB)},
                     "first-fit", vm_config("vgpu", s));
  EXPECT_EQ(r.pods[0].status, PodStatus::kCompleted);
  EXPECT_EQ(r.pods[1].status, PodStatus::kFailed);
  EXPECT_NE(r.reason_of(1).find("vGPU A100D-10C"), std::string::npos) << r.reason_of(1);
}

TEST(VgpuEngine, VmBootDelaysTheStartAndHoldsTheVgpu) {
  // Boot 30 s: the pod is placed at 0, starts at 30, ends at 130.
  const auto r = run(cluster_of({node_group("n", 1, "L4", 1)}),
                     {pod("vm", 0, 100).milli(500).gpu_mem(6 * kGiB)}, "first-fit",
                     vm_config("vgpu", vm_settings(VgpuScheduler::kEqualShare, 30)));
  EXPECT_DOUBLE_EQ(r.pods[0].start_s, 30.0);
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 130.0);
}

TEST(VgpuEngine, MultiGpuVmTakesOneVgpuOfItsTypeOnEachGpu) {
  // Two A10s on one node. "pair" (2 GPUs, 12 GiB, 500 milli -> A10-12C, 2 per GPU) takes one
  // 12C on each GPU; "solo" (12C too) joins one of them, GPU 0 (equally full: the lower index).
  // "small" (4 GiB, 100 milli -> A10-4C) finds no empty GPU and no 4C GPU: it waits until a GPU
  // is empty, at 100 when "pair" ends (GPU 0 also held "solo" until 50).
  const auto r = run(cluster_of({node_group("n", 1, "A10", 2)}),
                     {pod("pair", 0, 100).gpus(2).milli(500).gpu_mem(12 * kGiB),
                      pod("solo", 0, 50).milli(500).gpu_mem(12 * kGiB),
                      pod("small", 1, 10).milli(100).gpu_mem(4 * kGiB)},
                     "first-fit", vm_config("vgpu", vm_settings(VgpuScheduler::kBestEffort)));
  // Best effort: GPU 0 holds pair + solo (0.5 + 0.5 = 1, no turns charged): all at solo speed.
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 100.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 50.0);
  EXPECT_EQ(testing::gpus_of(r, 0), (std::vector<int>{0, 1}));
  EXPECT_EQ(testing::gpus_of(r, 1), (std::vector<int>{0}));
  // GPU 1 hosts one 12C (of 2) and GPU 0 two: "small" waits for an empty GPU, at 100.
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 100.0);
}

TEST(VgpuEngine, ModelWithoutVgpuTypesTakesNoVgpuPods) {
  const auto r = run(cluster_of({node_group("n", 1, "H200", 1)}),
                     {pod("p", 0, 10).milli(100).gpu_mem(kGiB), pod("cpu", 0, 10).gpus(0).cpu(10)},
                     "first-fit", vm_config("vgpu", vm_settings(VgpuScheduler::kBestEffort)));
  EXPECT_EQ(r.pods[0].status, PodStatus::kUnschedulable);
  EXPECT_NE(r.reason_of(0).find("vGPU profile"), std::string::npos) << r.reason_of(0);
  EXPECT_EQ(r.pods[1].status, PodStatus::kCompleted);  // containers run, without a boot
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 0.0);
}

// ---- the three schedulers through the one rate solver -------------------------------------

struct Solved {
  std::vector<double> rate, error;
};

Solved solve_vgpu(VgpuScheduler scheduler, const std::vector<double>& demand,
                  const std::vector<double>& cap) {
  VmSettings s;
  s.scheduler = scheduler;  // default slices: 2 ms, 0.1 ms switch
  const VgpuSharing mode(std::make_shared<const VmSettings>(s));
  std::vector<TenantLoad> loads(demand.size());
  for (size_t i = 0; i < demand.size(); ++i) {
    loads[i].sm_demand = demand[i];
    loads[i].cap = cap[i];
  }
  Solved out{std::vector<double>(demand.size()), std::vector<double>(demand.size())};
  solve_gpu_rates(mode, loads, out.rate, out.error);
  return out;
}

constexpr double kE = 2.0 / 2.1;  // T / (T + switch cost) with the defaults

TEST(VgpuSchedulers, BestEffortIsMaxMinFairOverTheTimeLeftBySwitches) {
  // Demands 0.5, 0.3, 0.4 sum to 1.2 > 1: capacity e = 2/2.1. Fair share e/3 = 0.3175 > 0.3, so
  // 0.3 is met and the other two split e - 0.3 equally.
  const auto s = solve_vgpu(VgpuScheduler::kBestEffort, {0.5, 0.3, 0.4}, {0.25, 0.25, 0.25});
  const double rest = (kE - 0.3) / 2;
  EXPECT_NEAR(s.rate[0], rest / 0.5, 1e-9);
  EXPECT_NEAR(s.rate[1], 1.0, 1e-9);
  EXPECT_NEAR(s.rate[2], rest / 0.4, 1e-9);
  for (const double e : s.error) EXPECT_EQ(e, -1.0);  // best effort promises nothing
  // Within the GPU no switch is charged: everyone at solo speed.
  const auto light = solve_vgpu(VgpuScheduler::kBestEffort, {0.5, 0.3}, {0.25, 0.25});
  EXPECT_DOUBLE_EQ(light.rate[0], 1.0);
  EXPECT_DOUBLE_EQ(light.rate[1], 1.0);
}

TEST(VgpuSchedulers, EqualShareGivesEachRunningVgpuATurnOfOneNth) {
  // n = 3: each at most e/3, and what one leaves idle is not given to the others.
  const auto s = solve_vgpu(VgpuScheduler::kEqualShare, {0.5, 0.3, 0.4}, {0.25, 0.25, 0.25});
  EXPECT_NEAR(s.rate[0], kE / 3 / 0.5, 1e-9);
  EXPECT_NEAR(s.rate[1], 1.0, 1e-9);  // 0.3 < e/3
  EXPECT_NEAR(s.rate[2], kE / 3 / 0.4, 1e-9);
  for (const double e : s.error) EXPECT_NEAR(e, 0.0, 1e-9);  // delivered what it promised
  // Light load still costs the turns: two tenants of 0.5 each get e/2.
  const auto two = solve_vgpu(VgpuScheduler::kEqualShare, {0.5, 0.5}, {0.25, 0.25});
  EXPECT_NEAR(two.rate[0], kE / 2 / 0.5, 1e-9);
  // Alone: the whole GPU, no switches.
  const auto one = solve_vgpu(VgpuScheduler::kEqualShare, {1.0}, {0.25});
  EXPECT_DOUBLE_EQ(one.rate[0], 1.0);
}

TEST(VgpuSchedulers, FixedShareIsOneOverTheTypesMaxCountWhateverRuns) {
  // 20C (4 per GPU): e/4 each while two run; alone, 1/4 (no switches, still its fixed share).
  const auto s = solve_vgpu(VgpuScheduler::kFixedShare, {0.5, 0.1}, {0.25, 0.25});
  EXPECT_NEAR(s.rate[0], kE / 4 / 0.5, 1e-9);
  EXPECT_NEAR(s.rate[1], 1.0, 1e-9);
  for (const double e : s.error) EXPECT_NEAR(e, 0.0, 1e-9);
  const auto one = solve_vgpu(VgpuScheduler::kFixedShare, {1.0}, {0.125});
  EXPECT_DOUBLE_EQ(one.rate[0], 0.125);
}

TEST(VgpuSchedulers, FixedShareInAnEngineRunComesFromTheProfile) {
  // One whole-demand pod with a fixed 10C profile (8 per GPU) runs at 1/8: 10 s take 80 s.
  VmSettings s = vm_settings(VgpuScheduler::kFixedShare);
  s.profile = "10C";
  const auto r = run(cluster_of({node_group("n", 1, "A100-80GB", 1)}),
                     {pod("p", 0, 10).gpu_mem(4 * kGiB)}, "first-fit", vm_config("vgpu", s));
  EXPECT_NEAR(r.pods[0].finish_s, 80.0, 1e-9);
}

// ---- passthrough ------------------------------------------------------------------------------

TEST(PassthroughEngine, OneVmPerGpuFromPlacementThroughBootUntilItEnds) {
  // One GPU, boot 30 s. vm1 (0, 100 s of work) is placed at 0, boots until 30, ends at 130.
  // vm2 arrives at 10, during vm1's boot: the GPU is held, so vm2 waits until 130, boots until
  // 160 and ends at 260, although both ask for a tenth of a GPU. A CPU-only container on the
  // same node starts at once and without boot.
  VmSettings s;
  s.boot_s = 30;
  const auto r =
      run(cluster_of({node_group("n", 1, "A100-80GB", 1)}),
          {pod("vm1", 0, 100).milli(100).gpu_mem(kGiB),
           pod("vm2", 10, 100).milli(100).gpu_mem(kGiB), pod("ctr", 5, 50).gpus(0).cpu(1000)},
          "first-fit", vm_config("passthrough", s));
  EXPECT_EQ(r.sharing, "passthrough (30s VM boot)");
  EXPECT_DOUBLE_EQ(r.pods[0].start_s, 30.0);
  EXPECT_DOUBLE_EQ(r.pods[0].finish_s, 130.0);
  EXPECT_DOUBLE_EQ(r.pods[1].start_s, 160.0);
  EXPECT_DOUBLE_EQ(r.pods[1].finish_s, 260.0);
  EXPECT_DOUBLE_EQ(r.pods[2].start_s, 5.0);
  EXPECT_DOUBLE_EQ(r.pods[2].finish_s, 55.0);
}

TEST(PassthroughMode, AdmitsExactlyOneTenantPerGpu) {
  SharingConfig c;
  c.kind = "passthrough";
  const auto mode = make_sharing_mode(c);
  EXPECT_EQ(mode->max_tenants(), 1);
  EXPECT_EQ(mode->claim_units(1), mode->capacity_units());  // a tenth of a GPU takes all of it
  EXPECT_TRUE(mode->isolates_memory());
}

// ---- scenario keys ------------------------------------------------------------------------

std::string load_error(const std::string& sharing) {
  const auto dir = std::filesystem::temp_directory_path() / "slicelab_vm_sharing_test";
  std::filesystem::create_directories(dir);
  const auto file = dir / "s.yaml";
  std::ofstream(file) << "name: t\ncluster:\n  node_groups:\n"
                         "    - {count: 1, gpu_model: A10, gpus_per_node: 1, cpu_milli: 1000, "
                         "memory_mib: 1024}\n"
                         "workload:\n  pods:\n    - {name: a, duration: 10}\n"
                         "policies:\n  - placement: first-fit\n    sharing: "
                      << sharing << "\n";
  try {
    load_scenario(file.string());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(VmScenario, KeysAreReadAndBadValuesRefusedWithTheirPlace) {
  EXPECT_EQ(load_error("{mode: vgpu, scheduler: equal-share, time_slice_ms: 4, profile: 12C}"), "");
  EXPECT_EQ(load_error("passthrough"), "");
  EXPECT_NE(load_error("{mode: vgpu, scheduler: fair}").find("unknown vGPU scheduler 'fair'"),
            std::string::npos);
  EXPECT_NE(load_error("{mode: passthrough, scheduler: fixed-share}").find("scheduler"),
            std::string::npos);
  EXPECT_NE(load_error("{mode: vgpu, profile: 7C}").find("unknown vGPU profile size '7C'"),
            std::string::npos);
  // 80C exists (A100-80GB, H100) but not on the cluster's A10.
  EXPECT_NE(load_error("{mode: vgpu, profile: 80C}").find("A10: 24C, 12C, 8C, 6C, 4C"),
            std::string::npos);
  EXPECT_NE(load_error("{mode: vgpu, time_slice_ms: 0}").find("time_slice_ms"), std::string::npos);
}

}  // namespace
}  // namespace slicelab
