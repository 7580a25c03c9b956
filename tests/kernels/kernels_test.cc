// The micro-kernels' catalog, the harness run on the GPU-free fakes with the CPU stand-in (its
// plumbing, its JSON and the calibrate CSV), and the real kernels, which skip without a GPU.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

#include "backends/local/gpu_detection.h"
#include "kernel_harness/colocation_experiment.h"
#include "kernel_harness/kernel_process.h"
#include "kernels/kernel_catalog.h"
#include "tests/local/local_test_support.h"

namespace slicelab {
namespace {

using test::TempDir;

TEST(KernelCatalog, SixSelfDescribingKernels) {
  std::set<std::string> names;
  for (const KernelInfo& k : kernel_catalog()) {
    names.emplace(k.name);
    EXPECT_FALSE(k.description.empty());
    EXPECT_FALSE(k.work_unit.empty());
  }
  EXPECT_EQ(names, (std::set<std::string>{"launch-storm", "fma", "triad", "alloc-churn",
                                          "graph-replay", "inference-mix"}));
  // Triad moves three float arrays of 16M elements and does one multiply and one add each.
  EXPECT_EQ(find_kernel("triad")->bytes_per_unit, 3.0 * 4 * 16 * 1024 * 1024);
  EXPECT_EQ(find_kernel("triad")->flops_per_unit, 2.0 * 16 * 1024 * 1024);
  EXPECT_FALSE(find_kernel("nope"));
}

TEST(KernelHarness, SpreadUsesNearestRank) {
  const Spread s = spread_of({5, 1, 4, 2, 3});
  EXPECT_EQ(s.n, 5u);
  EXPECT_EQ(s.median, 3);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 5);
  EXPECT_EQ(s.p25, 2);
  EXPECT_EQ(s.p75, 4);
}

class KernelsOnFakes : public TempDir {
 protected:
  std::vector<std::string> fake_tools() const {
    return {"--kernel-binary",   SLICELAB_STANDIN, "--interposer",
            SLICELAB_INTERPOSER, "--work-dir",     path("work")};
  }
};

TEST_F(KernelsOnFakes, NoGpuIsAClearMessageAndExitCodeThree) {
  EnvMap env = test::fake_gpu_env();
  env["SLICELAB_NVML_LIBRARY"] = "/nonexistent/libnvidia-ml.so.1";
  for (const char* sub : {"overhead", "isolation", "colocation"}) {
    const auto r = slicelab({"kernels", sub}, env);
    EXPECT_EQ(r.status.exit_code, 3) << sub << ": " << r.output;
    EXPECT_EQ(r.output.rfind("no GPU: ", 0), 0u) << r.output;
  }
}

TEST_F(KernelsOnFakes, OverheadComparesPlainAndPreloadedRuns) {
  auto args = fake_tools();
  args.insert(args.begin(), {"kernels", "overhead", "--kernels", "fma,launch-storm",
                             "--repetitions", "3", "--units", "20", "-o", path("o.json")});
  const auto r = slicelab(args, test::fake_gpu_env());
  ASSERT_EQ(r.status.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(test::read_file(path("o.json")));
  ASSERT_EQ(j["kernels"].size(), 2u) << j.dump(1);
  for (const auto& k : j["kernels"]) {
    EXPECT_EQ(k["per_unit_ns_plain"]["n"], 3);
    EXPECT_EQ(k["per_unit_ns_interposer"]["n"], 3);
    // The stand-in's unit is a 1 ms fake kernel and a sync, with or without the interposer.
    EXPECT_GT(k["per_unit_ns_plain"]["median"].get<double>(), 0.9e6) << k.dump(1);
    // Same work either way; loose bounds because both runs share a busy machine's clock.
    EXPECT_GT(k["overhead_ratio"].get<double>(), 0.25) << k.dump(1);
    EXPECT_LT(k["overhead_ratio"].get<double>(), 4.0) << k.dump(1);
  }
}

TEST_F(KernelsOnFakes, IsolationMeasuresSharesUnderTheInterposerAndItsMemoryCap) {
  auto args = fake_tools();
  args.insert(args.begin(), {"kernels", "isolation", "--shares", "0.3,0.6", "--duration", "1.5",
                             "--mechanisms", "interposer,time-slice,mig", "-o", path("i.json")});
  const auto r = slicelab(args, test::fake_gpu_env(), 180);
  ASSERT_EQ(r.status.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(test::read_file(path("i.json")));
  ASSERT_EQ(j["mechanisms"].size(), 3u) << j.dump(1);
  const auto& ip = j["mechanisms"][0];
  EXPECT_EQ(ip["mechanism"], "interposer");
  ASSERT_EQ(ip["clients"].size(), 2u) << ip.dump(1);
  // The harness's wiring, not the limiter's accuracy (pinned on virtual time in
  // interposer_tests): these clients run on the wall clock beside whatever else the machine
  // runs, so the bounds are loose. Each capped client is slowed, the 30% one more than the 60%.
  for (const auto& c : ip["clients"]) {
    ASSERT_TRUE(c.contains("achieved_share")) << c.dump(1);
    EXPECT_GT(c["achieved_share"].get<double>(), 0.0) << c.dump(1);
    EXPECT_NEAR(c["achieved_share"].get<double>(), c["configured_share"].get<double>(), 0.3)
        << c.dump(1);
  }
  EXPECT_LT(ip["clients"][0]["achieved_share"].get<double>(),
            ip["clients"][1]["achieved_share"].get<double>())
      << ip.dump(1);
  EXPECT_EQ(ip["memory_isolation"]["over_cap_client_got_oom"], true) << ip.dump(1);
  EXPECT_EQ(ip["memory_isolation"]["neighbours_completed"], true) << ip.dump(1);
  const auto& ts = j["mechanisms"][1];
  EXPECT_EQ(ts["mechanism"], "time-slice");
  EXPECT_EQ(ts["clients"][0]["configured_share"], 0.5);
  EXPECT_TRUE(j["mechanisms"][2].contains("skipped")) << "the fake GPUs have no MIG instances";
}

TEST_F(KernelsOnFakes, ColocationWritesTheCalibrateCsv) {
  auto args = fake_tools();
  args.insert(args.begin(), {"kernels", "colocation", "--kernels", "fma,triad", "--modes",
                             "time-slice,interposer,whole-card,mig", "--caps", "0.5:0.5,0.25:0.75",
                             "--duration", "0.3", "-o", path("c.csv")});
  const auto r = slicelab(args, test::fake_gpu_env(), 180);
  ASSERT_EQ(r.status.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("skipped mig"), std::string::npos) << r.output;
  std::stringstream csv(test::read_file(path("c.csv")));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "class_a,class_b,mode,cap_a,cap_b,slowdown_a,slowdown_b");
  std::map<std::string, int> per_mode;
  while (std::getline(csv, line)) {
    std::vector<std::string> v;
    std::stringstream ls(line);
    for (std::string f; std::getline(ls, f, ',');) v.push_back(f);
    ASSERT_EQ(v.size(), 7u) << line;
    ++per_mode[v[2]];
    EXPECT_GT(std::stod(v[5]), 0) << line;
    EXPECT_GT(std::stod(v[6]), 0) << line;
    if (v[2] == "interposer" && v[3] == "0.25") {  // a quarter of the GPU: about 4x slower
      EXPECT_GT(std::stod(v[5]), 2.5) << line;
    }
  }
  // Three pairs (fma+fma, fma+triad, triad+triad): one cap pair each for time-slice and
  // whole-card (two fake GPUs), two for the interposer.
  EXPECT_EQ(per_mode["time-slice"], 3);
  EXPECT_EQ(per_mode["whole-card"], 3);
  EXPECT_EQ(per_mode["interposer"], 6);
  EXPECT_EQ(per_mode.count("mig"), 0u);
}

// --- on a real GPU ---

class RealGpu : public TempDir {
 protected:
  void SetUp() override {
    TempDir::SetUp();
    const GpuDetection d = detect_gpus("libnvidia-ml.so.1");
    if (!d.ok()) GTEST_SKIP() << "skipped: no GPU (" << d.problem << ")";
    if (std::string(SLICELAB_KERNEL_BINARY).empty())
      GTEST_SKIP() << "skipped: slicelab-kernel was not built (no nvcc)";
  }
};

TEST_F(RealGpu, EveryKernelRunsAndReportsItsWork) {
  HarnessTools tools{SLICELAB_KERNEL_BINARY, SLICELAB_INTERPOSER, "", path("work"), ""};
  for (const KernelInfo& k : kernel_catalog()) {
    const KernelResult r =
        run_kernel(tools, std::string(k.name), {"--reps", "20"}, {}, std::string(k.name));
    ASSERT_TRUE(r.ok()) << k.name << ": " << r.error();
    EXPECT_EQ(r.json["units"], 20);
    EXPECT_GT(r.per_unit_ns(), 0);
  }
}

TEST_F(RealGpu, OverheadHarnessRunsWithTheRealInterposer) {
  const auto r = slicelab({"kernels", "overhead", "--kernels", "launch-storm,fma", "--repetitions",
                           "3", "--kernel-binary", SLICELAB_KERNEL_BINARY, "--interposer",
                           SLICELAB_INTERPOSER, "-o", path("o.json")},
                          test::current_environment_for_gpu());
  ASSERT_EQ(r.status.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(test::read_file(path("o.json")));
  EXPECT_EQ(j["kernels"].size(), 2u);
}

}  // namespace
}  // namespace slicelab
