// `slicelab replay --backend local` end to end without a GPU: the fake NVML reports two GPUs,
// the CPU stand-in is the workload, and the interposer runs over the fake libcuda.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <filesystem>

#include <chrono>
#include <regex>
#include <set>
#include <thread>

#include "tests/local/local_test_support.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using test::read_file;
using test::TempDir;

class LocalReplay : public TempDir {
 protected:
  // A scenario whose one policy uses `sharing`; durations in scenario seconds (run at 1/100).
  std::string scenario(const std::string& sharing, const std::string& pods) {
    return write("s.yaml",
                 "name: local-test\nseed: 1\n"
                 "cluster:\n  node_groups:\n"
                 "    - {name: n, count: 1, gpu_model: A100-80GB, gpus_per_node: 2,"
                 " cpu_milli: 8000, memory_mib: 64Gi}\n"
                 "workload:\n  pods:\n" +
                     pods + "policies:\n  - {name: p, placement: best-fit" +
                     (sharing.empty() ? "" : ", sharing: " + sharing) + "}\n");
  }
  test::Ran replay(const std::string& yaml, const std::vector<std::string>& extra = {},
                   const EnvMap& env = test::fake_gpu_env()) {
    std::vector<std::string> args{
        "replay",          "--backend",      "local",        yaml,
        "--out",           path("out"),      "--time-scale", "0.01",
        "--kernel-binary", SLICELAB_STANDIN, "--interposer", SLICELAB_INTERPOSER};
    args.insert(args.end(), extra.begin(), extra.end());
    return slicelab(args, env);
  }
  nlohmann::json summary() {
    return nlohmann::json::parse(read_file(path("out") + "/summary.json"))["policies"][0];
  }
  std::string pod_log(const std::string& pod) {
    return read_file(path("out.pods/" + pod + ".log"));
  }
  // The CUDA_VISIBLE_DEVICES the pod's process was given ("none" if its log does not say).
  std::string devices_of(const std::string& pod) {
    std::smatch m;
    const std::string log = pod_log(pod);
    return std::regex_search(log, m, std::regex("env CUDA_VISIBLE_DEVICES=(\\S+)"))
               ? std::string(m[1])
               : std::string("none");
  }
  // Start and finish (scenario seconds) of a pod from pods.csv.
  std::pair<double, double> times(const std::string& pod) {
    const std::string csv = read_file(path("out") + "/pods.csv");
    std::stringstream ss(csv);
    std::string header, line;
    std::getline(ss, header);
    std::vector<std::string> cols;
    for (std::stringstream hs(header); std::getline(hs, line, ',');) cols.push_back(line);
    while (std::getline(ss, line)) {
      std::vector<std::string> v;
      for (std::stringstream ls(line); std::getline(ls, header, ',');) v.push_back(header);
      if (std::find(v.begin(), v.end(), pod) == v.end()) continue;
      double start = -1, finish = -1;
      for (size_t i = 0; i < cols.size() && i < v.size(); ++i) {
        if (cols[i] == "start_s") start = std::stod(v[i]);
        if (cols[i] == "finish_s") finish = std::stod(v[i]);
      }
      return {start, finish};
    }
    ADD_FAILURE() << "no pod " << pod << " in\n" << csv;
    return {-1, -1};
  }
};

TEST_F(LocalReplay, WholeCardPodsGetTheirOwnGpuAndQueueForOne) {
  const auto yaml = scenario("", R"(    - {name: a, arrival: 0, duration: 30, gpu_count: 1}
    - {name: b, arrival: 0, duration: 30, gpu_count: 1}
    - {name: c, arrival: 0, duration: 30, gpu_count: 1}
)");
  const auto r = replay(yaml);
  ASSERT_EQ(r.status.exit_code, 0) << r.output;
  const auto s = summary();
  EXPECT_EQ(s["pods"]["completed"], 3) << s.dump(1);
  EXPECT_NE(pod_log("a").find("env CUDA_VISIBLE_DEVICES=0"), std::string::npos) << pod_log("a");
  EXPECT_NE(pod_log("b").find("env CUDA_VISIBLE_DEVICES=1"), std::string::npos) << pod_log("b");
  EXPECT_NE(pod_log("a").find("env LD_PRELOAD=(unset)"), std::string::npos);
  EXPECT_NE(pod_log("a").find("env SLICELAB_POD=a"), std::string::npos);
  // Two GPUs, three whole-card pods: c starts when a or b has finished, and each runs about its
  // duration (0.3 s of real time = 30 scenario seconds).
  const auto [a_start, a_finish] = times("a");
  const auto [b_start, b_finish] = times("b");
  const auto [c_start, c_finish] = times("c");
  EXPECT_GE(a_finish - a_start, 29.0);
  EXPECT_LT(a_finish - a_start, 200.0);
  // Whichever of a and b ends first frees the GPU c takes (each 0.3 s of real time, so which one
  // that is depends on the machine's load).
  EXPECT_GE(c_start, std::min(a_finish, b_finish) - 1.0);
  EXPECT_GE(c_finish, c_start);
  (void)b_start;
  EXPECT_GE(s["queue_delay_s"]["max"].get<double>(), 29.0);
  EXPECT_GE(s["jct_s"]["max"].get<double>(), 59.0);
}

// A two-GPU pod sees both GPUs and its kernel runs on every visible one; a one-GPU pod on its own.
TEST_F(LocalReplay, MultiGpuPodsRunTheirKernelOnEveryGpu) {
  const auto yaml = scenario("", R"(    - {name: pair, duration: 10, gpu_count: 2}
    - {name: single, arrival: 20, duration: 10, gpu_count: 1}
)");
  const auto r = replay(yaml);
  ASSERT_EQ(r.status.exit_code, 0) << r.output;
  EXPECT_EQ(summary()["pods"]["completed"], 2);
  const std::string pair = pod_log("pair"), single = pod_log("single");
  EXPECT_NE(pair.find("env CUDA_VISIBLE_DEVICES=0,1"), std::string::npos) << pair;
  EXPECT_NE(pair.find("device all\n"), std::string::npos) << pair;
  EXPECT_NE(single.find("device 0\n"), std::string::npos) << single;
}

TEST_F(LocalReplay, InterposerCapsAndMemoryOutOfMemoryWhileNeighboursRun) {
  // gpu-share runs under the interposer: each pod's caps from its gpu_milli and memory; "big"
  // allocates past its cap and must fail with out-of-memory, its neighbour completes.
  const auto yaml =
      scenario("{mode: gpu-share}",
               R"(    - {name: big, duration: 20, gpu_count: 1, gpu_milli: 300, gpu_memory_mib: 256}
    - {name: small, duration: 20, gpu_count: 1, gpu_milli: 500, gpu_memory_mib: 256}
)");
  const std::string cmd = std::string("case $SLICELAB_POD in big) H=300;; *) H=100;; esac; exec ") +
                          SLICELAB_STANDIN + " {kernel} --duration {duration} --hold-mib $H";
  const auto r = replay(yaml, {"--command", cmd});
  ASSERT_EQ(r.status.exit_code, 0) << r.output;
  const auto s = summary();
  EXPECT_EQ(s["pods"]["completed"], 1) << s.dump(1);
  EXPECT_EQ(s["pods"]["failed"], 1) << s.dump(1);
  const std::string big = pod_log("big"), small = pod_log("small");
  EXPECT_NE(big.find("env LD_PRELOAD=" + std::string(SLICELAB_INTERPOSER)), std::string::npos)
      << big;
  EXPECT_NE(big.find("env SLICELAB_SM_LIMIT=30"), std::string::npos) << big;
  EXPECT_NE(big.find("env SLICELAB_MEMORY_LIMIT=256m"), std::string::npos) << big;
  EXPECT_NE(big.find("\"error\": \"out of memory\""), std::string::npos) << big;
  EXPECT_NE(small.find("env SLICELAB_SM_LIMIT=50"), std::string::npos) << small;
  EXPECT_NE(small.find("\"per_unit_ns\""), std::string::npos) << small;
  EXPECT_NE(read_file(path("out") + "/pods.csv").find("out of memory"), std::string::npos);
}

TEST_F(LocalReplay, ASecondRunIsHeldToItsOwnCapsNotTheFirstRuns) {
  // The first process of a region fixes the container's caps; a region kept from an earlier run
  // would hold this run's pod to that run's 256 MiB. Regions are fresh per run.
  const std::string cmd =
      std::string("exec ") + SLICELAB_STANDIN + " {kernel} --duration {duration} --hold-mib 300";
  const auto pod = [](int mib) {
    return fmt::format(
        "    - {{name: big, duration: 5, gpu_count: 1, gpu_milli: 300, "
        "gpu_memory_mib: {}}}\n",
        mib);
  };
  auto r = replay(scenario("{mode: gpu-share}", pod(256)), {"--command", cmd});
  ASSERT_EQ(r.status.exit_code, 0) << r.output;
  EXPECT_EQ(summary()["pods"]["failed"], 1) << summary().dump(1);
  r = replay(scenario("{mode: gpu-share}", pod(512)), {"--command", cmd});
  ASSERT_EQ(r.status.exit_code, 0) << r.output;
  EXPECT_EQ(summary()["pods"]["completed"], 1) << pod_log("big");
  for (const auto& e : fs::directory_iterator(path("out.pods")))
    EXPECT_NE(e.path().extension(), ".region") << "regions stay out of the log folder";
}

TEST_F(LocalReplay, ALogFolderSlicelabDidNotWriteIsRefusedAndKept) {
  fs::create_directories(path("out.pods"));
  write("out.pods/notes.txt", "mine");
  const auto r = replay(scenario("", "    - {name: a, duration: 5, gpu_count: 1}\n"));
  EXPECT_NE(r.status.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("out.pods"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(path("out.pods/notes.txt")), "mine");
}

TEST_F(LocalReplay, MpsDaemonStartsWithItsFoldersAndIsCleanedUp) {
  const auto yaml =
      scenario("{mode: gpu-share}",
               R"(    - {name: m1, duration: 20, gpu_count: 1, gpu_milli: 400, gpu_memory_mib: 512}
    - {name: m2, duration: 20, gpu_count: 1, gpu_milli: 600}
)");
  EnvMap env = test::fake_gpu_env();
  env["FAKE_MPS_LOG"] = path("mps.log");
  const auto r = replay(yaml, {"--mechanism", "mps"}, env);
  ASSERT_EQ(r.status.exit_code, 0) << r.output;
  EXPECT_EQ(summary()["pods"]["completed"], 2);
  const std::string sent = read_file(path("mps.log"));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(sent, m, std::regex("start pipe=(\\S+) log=(\\S+)"))) << sent;
  const std::string pipe = m[1], log = m[2];
  EXPECT_NE(sent.find("cmd quit"), std::string::npos) << sent;
  EXPECT_FALSE(fs::exists(pipe)) << "the MPS pipe folder was left behind";
  EXPECT_FALSE(fs::exists(log));
  const std::string m1 = pod_log("m1");
  EXPECT_NE(m1.find("env CUDA_MPS_PIPE_DIRECTORY=" + pipe), std::string::npos) << m1;
  EXPECT_NE(m1.find("env CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=40"), std::string::npos) << m1;
  EXPECT_NE(m1.find("env CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=512M"), std::string::npos) << m1;
  EXPECT_NE(m1.find("env LD_PRELOAD=(unset)"), std::string::npos) << m1;
}

// With replicas the limits are the device plugin's: equal for all, set through the control
// pipe (25% and 2048/4 MiB on each of the two GPUs), and no pod carries its own.
TEST_F(LocalReplay, MpsReplicaLimitsGoThroughTheControlPipe) {
  const auto yaml =
      scenario("{mode: mps, replicas: 4}",
               R"(    - {name: r1, duration: 20, gpu_count: 1, gpu_milli: 400, gpu_memory_mib: 300}
    - {name: r2, duration: 20, gpu_count: 1}
)");
  EnvMap env = test::fake_gpu_env();
  env["FAKE_MPS_LOG"] = path("mps.log");
  const auto r = replay(yaml, {}, env);
  ASSERT_EQ(r.status.exit_code, 0) << r.output;
  EXPECT_EQ(summary()["pods"]["completed"], 2);
  const std::string sent = read_file(path("mps.log"));
  const size_t start = sent.find("start pipe="),
               pct = sent.find("cmd set_default_active_thread_percentage 25"),
               mem0 = sent.find("cmd set_default_device_pinned_mem_limit 0 512M"),
               mem1 = sent.find("cmd set_default_device_pinned_mem_limit 1 512M"),
               quit = sent.find("cmd quit");
  ASSERT_NE(pct, std::string::npos) << sent;
  ASSERT_NE(mem0, std::string::npos) << sent;
  ASSERT_NE(mem1, std::string::npos) << sent;
  EXPECT_LT(start, pct);
  EXPECT_LT(mem1, quit) << sent;
  for (const char* pod : {"r1", "r2"}) {
    const std::string log = pod_log(pod);
    EXPECT_NE(log.find("env CUDA_MPS_PIPE_DIRECTORY="), std::string::npos) << log;
    EXPECT_NE(log.find("env CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=(unset)"), std::string::npos) << log;
    EXPECT_NE(log.find("env CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=(unset)"), std::string::npos) << log;
  }
}

TEST_F(LocalReplay, InterruptStopsEveryPodAndTheMpsDaemon) {
  // SIGTERM to slicelab mid-run: pods that ignore SIGTERM are killed, the daemon is told to
  // quit and its folders go, and the run fails without writing results.
  const auto yaml = scenario("", "    - {name: long, duration: 6000, gpu_count: 1}\n");
  EnvMap env = test::fake_gpu_env();
  env["FAKE_MPS_LOG"] = path("mps.log");
  env["SLICELAB_STANDIN_HANG"] = "all";
  ChildProcess p(
      {SLICELAB_BINARY, "replay", "--backend", "local", yaml, "--out", path("out"), "--time-scale",
       "0.01", "--kernel-binary", SLICELAB_STANDIN, "--mechanism", "mps"},
      env, path("slicelab.log"));
  std::smatch m;
  std::string log;
  for (int i = 0; i < 2000; ++i) {  // until the pod has started and said its pid
    log = fs::exists(path("out.pods/long.log")) ? pod_log("long") : "";
    if (std::regex_search(log, m, std::regex("pid (\\d+)"))) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(std::regex_search(log, m, std::regex("pid (\\d+)"))) << log;
  const pid_t pod = std::stoi(m[1]);
  kill(p.pid(), SIGTERM);
  const auto s = p.wait_for(std::chrono::seconds(20));
  ASSERT_TRUE(s) << "slicelab did not stop on SIGTERM";
  EXPECT_EQ(s->exit_code, 1) << s->describe();
  EXPECT_NE(read_file(path("slicelab.log")).find("interrupted"), std::string::npos)
      << read_file(path("slicelab.log"));
  for (int i = 0; i < 200 && kill(pod, 0) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_NE(kill(pod, 0), 0) << "the pod's process survived the interrupt";
  const std::string sent = read_file(path("mps.log"));
  ASSERT_TRUE(std::regex_search(sent, m, std::regex("start pipe=(\\S+)"))) << sent;
  EXPECT_FALSE(fs::exists(std::string(m[1])));
  EXPECT_NE(sent.find("cmd quit"), std::string::npos) << sent;
  EXPECT_FALSE(fs::exists(path("out")));
}

TEST_F(LocalReplay, HungPodIsKilledOnTimeoutAndCrashIsReported) {
  const auto yaml = scenario("", R"(    - {name: ok, duration: 10, gpu_count: 1}
    - {name: hang, duration: 10, gpu_count: 1}
    - {name: crash, duration: 10, gpu_count: 1}
)");
  EnvMap env = test::fake_gpu_env();
  env["SLICELAB_STANDIN_HANG"] = "hang";
  env["SLICELAB_STANDIN_CRASH"] = "crash";
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = replay(yaml, {"--timeout-factor", "1", "--timeout-grace", "0.5"}, env);
  ASSERT_EQ(r.status.exit_code, 0) << r.output;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
  const auto s = summary();
  EXPECT_EQ(s["pods"]["completed"], 1) << s.dump(1);
  EXPECT_EQ(s["pods"]["failed"], 2) << s.dump(1);
  const std::string csv = read_file(path("out") + "/pods.csv");
  EXPECT_NE(csv.find("timeout"), std::string::npos) << csv;
  EXPECT_NE(csv.find("signal 6"), std::string::npos) << csv;
}

TEST_F(LocalReplay, MigPodsRunOnTheExistingInstances) {
  // One fake GPU with two MIG instances: they are the schedulable GPUs, each pod gets one
  // instance's UUID; a third pod waits for an instance.
  const auto yaml = scenario("", R"(    - {name: a, duration: 20, gpu_count: 1}
    - {name: b, duration: 20, gpu_count: 1}
    - {name: c, duration: 20, gpu_count: 1}
)");
  EnvMap env = test::fake_gpu_env();
  env["SLICELAB_FAKE_DEVICES"] = "1";
  env["SLICELAB_FAKE_MIG_INSTANCES"] = "2";
  const auto r = replay(yaml, {"--mechanism", "mig"}, env);
  ASSERT_EQ(r.status.exit_code, 0) << r.output;
  EXPECT_EQ(summary()["pods"]["completed"], 3);
  const std::set<std::string> used{devices_of("a"), devices_of("b")};
  EXPECT_EQ(used, (std::set<std::string>{"MIG-fake-0-0", "MIG-fake-0-1"}));
  EXPECT_GE(times("c").first, std::min(times("a").second, times("b").second) - 1.0);

  env["SLICELAB_FAKE_MIG_INSTANCES"] = "0";  // no instances: refused, nothing reconfigured
  const auto none = replay(yaml, {"--mechanism", "mig"}, env);
  EXPECT_EQ(none.status.exit_code, 1) << none.output;
  EXPECT_NE(none.output.find("no MIG instances"), std::string::npos) << none.output;
}

// --allow-mig-reconfigure: the policy's layout is created through nvidia-smi (the fake keeps
// the instances in a state file the fake NVML reads), the pods run on the new instances, and
// a second run finds the layout in place and changes nothing.
TEST_F(LocalReplay, MigReconfigureCreatesThePolicysLayoutOnce) {
  const auto halves = [&] {
    return scenario(
        "{mode: mig, layout: halves, mig_config: {mig-configs: {halves: [{devices: all, "
        "mig-enabled: true, mig-devices: {\"3g.40gb\": 2}}]}}}",
        R"(    - {name: a, duration: 20, gpu_count: 1, gpu_milli: 400}
    - {name: b, duration: 20, gpu_count: 1, gpu_milli: 400}
)");
  };
  const std::string yaml = halves();
  EnvMap env = test::fake_gpu_env();
  env["SLICELAB_FAKE_DEVICES"] = "1";
  env["SLICELAB_FAKE_GPU_NAME"] = "NVIDIA A100-SXM4-80GB";
  env["SLICELAB_FAKE_DEVICE_MEM"] = std::to_string(uint64_t{81920} << 20);
  env["SLICELAB_FAKE_MIG_MODE"] = "1";
  env["SLICELAB_FAKE_MIG_STATE"] = path("mig.state");
  env["SLICELAB_NVIDIA_SMI"] = SLICELAB_FAKE_SMI;
  env["FAKE_SMI_LOG"] = path("smi.log");

  const auto without = replay(yaml, {}, env);  // without the flag nothing is touched
  EXPECT_EQ(without.status.exit_code, 1) << without.output;
  EXPECT_NE(without.output.find("unless --allow-mig-reconfigure"), std::string::npos);
  EXPECT_FALSE(fs::exists(path("smi.log")));

  // No instance listed: the destroys still run (a GPU instance without a compute instance is
  // not listed), and their "nothing to destroy" failure is not an error.
  const std::string kCreated =
      "mig -i 0 -dci\nmig -i 0 -dgi\nmig -i 0 -cgi 3g.40gb:0,3g.40gb:4 -C\n";
  const auto r = replay(yaml, {"--allow-mig-reconfigure"}, env);
  ASSERT_EQ(r.status.exit_code, 0) << r.output;
  EXPECT_EQ(read_file(path("smi.log")), kCreated);
  EXPECT_NE(r.output.find("MIG: GPU 0: created 3g.40gb:0, 3g.40gb:4"), std::string::npos)
      << r.output;
  EXPECT_EQ(summary()["pods"]["completed"], 2);
  const std::set<std::string> used{devices_of("a"), devices_of("b")};
  EXPECT_EQ(used, (std::set<std::string>{"MIG-fake-0-0", "MIG-fake-0-1"}));

  const auto again = replay(yaml, {"--allow-mig-reconfigure"}, env);
  ASSERT_EQ(again.status.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("MIG: GPU 0: already has the layout"), std::string::npos)
      << again.output;
  EXPECT_EQ(read_file(path("smi.log")), kCreated);

  // Another layout replaces the instances: compute instances, then GPU instances, then create.
  const auto full = scenario(
      "{mode: mig, layout: one, mig_config: {mig-configs: {one: [{devices: all, "
      "mig-enabled: true, mig-devices: {\"7g.80gb\": 1}}]}}}",
      "    - {name: a, duration: 20, gpu_count: 1}\n");
  const auto changed = replay(full, {"--allow-mig-reconfigure"}, env);
  ASSERT_EQ(changed.status.exit_code, 0) << changed.output;
  EXPECT_EQ(read_file(path("smi.log")),
            kCreated + "mig -i 0 -dci\nmig -i 0 -dgi\nmig -i 0 -cgi 7g.80gb:0 -C\n");

  env["FAKE_SMI_FAIL"] = "1";  // a GPU in use: the run stops with nvidia-smi's words
  const auto busy = replay(halves(), {"--allow-mig-reconfigure"}, env);
  EXPECT_EQ(busy.status.exit_code, 1) << busy.output;
  EXPECT_NE(busy.output.find("In use by another client"), std::string::npos) << busy.output;
}

TEST_F(LocalReplay, NoGpuExitsWithItsOwnCodeAndMessage) {
  EnvMap env = test::fake_gpu_env();
  env["SLICELAB_NVML_LIBRARY"] = "/nonexistent/libnvidia-ml.so.1";
  const auto yaml = scenario("", "    - {name: a, duration: 10, gpu_count: 1}\n");
  const auto r = replay(yaml, {}, env);
  EXPECT_EQ(r.status.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("no GPU: no NVIDIA driver"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(path("out")));
}

TEST_F(LocalReplay, PodsThatCannotFitAreUnschedulableAndCompareShowsBothRuns) {
  const auto yaml = scenario("", R"(    - {name: a, duration: 20, gpu_count: 1}
    - {name: huge, duration: 20, gpu_count: 4}
)");
  const auto r = replay(yaml);
  ASSERT_EQ(r.status.exit_code, 0) << r.output;
  const auto s = summary();
  EXPECT_EQ(s["pods"]["completed"], 1);
  EXPECT_EQ(s["pods"]["unschedulable"], 1);
  const auto c = slicelab({"compare", "--measured", path("out"), yaml}, test::fake_gpu_env());
  ASSERT_EQ(c.status.exit_code, 0) << c.output;
  EXPECT_NE(c.output.find("policy p"), std::string::npos) << c.output;
  EXPECT_NE(c.output.find("simulated"), std::string::npos) << c.output;
  // The simulated JCT of pod a is exactly 20 s; the measured one a little more.
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(c.output, m, std::regex("JCT max \\(s\\)\\s+(\\S+)\\s+(\\S+)\\s+(\\S+)")))
      << c.output;
  EXPECT_EQ(m[1], "20");
  EXPECT_GE(std::stod(m[2]), 20.0);
  EXPECT_NEAR(std::stod(m[3]), std::stod(m[2]) - 20.0, 0.01);
}

// The measured summary is the engine's summary of the measured outcomes, and the queue is the
// engine's: replayed on the fake driver, a run with a failed pod agrees with its simulation on
// every figure defined by the outcomes (counts, failure causes, queueing delay without the
// failed pod, JCT, slowdown), up to the few scenario seconds a process takes to start and be
// seen to end.
TEST_F(LocalReplay, MeasuredAndSimulatedSummariesAgreeOnARunWithAFailure) {
  // Two whole GPUs (gpu_milli 1000, interposer caps). a and b start at once; c waits for a
  // (100 s); f waits for b and c (200 s), starts and fails at once, as the simulator fails it:
  // it uses 300 MiB under a 256 MiB cap; d, behind f, starts as f fails (200 s).
  const auto yaml = scenario("{mode: interposer}",
                             R"(    - {name: a, duration: 100, gpu_count: 1, gpu_memory_mib: 256}
    - {name: b, duration: 200, gpu_count: 1, gpu_memory_mib: 256}
    - {name: c, duration: 100, gpu_count: 1, gpu_memory_mib: 256}
    - {name: f, duration: 100, gpu_count: 1, gpu_memory_mib: 256, gpu_memory_used_mib: 300}
    - {name: d, duration: 50, gpu_count: 1, gpu_memory_mib: 256}
)");
  const std::string cmd = std::string("case $SLICELAB_POD in f) H=300;; *) H=100;; esac; exec ") +
                          SLICELAB_STANDIN + " {kernel} --duration {duration} --hold-mib $H";
  // At 0.02 real s per scenario s (5 s in all): a process's start and its seen end (tens of ms
  // on a loaded machine) are a few scenario seconds, adding up along the queue. Sanitized builds
  // start and poll processes several times slower (26 scenario s along the queue under ASan on
  // 2 busy cores), so they replay at 0.06 real s per scenario s (15 s), the same real-time cost
  // being a third of the scenario seconds.
#ifdef SLICELAB_SANITIZED
  const char* time_scale = "0.06";
#else
  const char* time_scale = "0.02";
#endif
  const auto r =
      slicelab({"replay", "--backend", "local", yaml, "--out", path("out"), "--time-scale",
                time_scale, "--interposer", SLICELAB_INTERPOSER, "--command", cmd},
               test::fake_gpu_env());
  ASSERT_EQ(r.status.exit_code, 0) << r.output;
  const auto c = slicelab({"compare", yaml, "--out", path("sim"), "--force"}, test::fake_gpu_env());
  ASSERT_EQ(c.status.exit_code, 0) << c.output;
  const auto measured = summary();
  const auto simulated =
      nlohmann::json::parse(read_file(path("sim") + "/summary.json"))["policies"][0];
  const std::string both = "measured: " + measured.dump(1) + "\nsimulated: " + simulated.dump(1);

  // The simulated run is as the comment above says.
  ASSERT_EQ(simulated["pods"]["failed"], 1) << both;
  ASSERT_EQ(simulated["queue_delay_s"]["max"], 200) << both;
  for (const char* key :
       {"completed", "failed", "unschedulable", "failed_own_memory", "failed_faults"})
    EXPECT_EQ(measured["pods"][key], simulated["pods"][key]) << key << "\n" << both;
  EXPECT_EQ(measured["neighbour_failures"], simulated["neighbour_failures"]) << both;
  // Queueing delay is over the pods that started and did not fail, in both.
  for (const char* dist : {"queue_delay_s", "jct_s", "slowdown"})
    EXPECT_EQ(measured[dist]["count"], simulated[dist]["count"]) << dist << "\n" << both;
  const double slack_s = 20.0;
  for (const char* stat : {"mean", "p50", "max"}) {
    EXPECT_NEAR(measured["queue_delay_s"][stat].get<double>(),
                simulated["queue_delay_s"][stat].get<double>(), slack_s)
        << stat << "\n"
        << both;
    EXPECT_NEAR(measured["jct_s"][stat].get<double>(), simulated["jct_s"][stat].get<double>(),
                2 * slack_s)
        << stat << "\n"
        << both;
  }
  // JCT / run time alone: d's 250 / 50 is the largest, off by at most its JCT's slack / 50.
  const double slowdown_slack = 2 * slack_s / 50;
  EXPECT_NEAR(measured["slowdown"]["mean"].get<double>(),
              simulated["slowdown"]["mean"].get<double>(), slowdown_slack)
      << both;
  EXPECT_NEAR(measured["slowdown"]["max"].get<double>(), simulated["slowdown"]["max"].get<double>(),
              slowdown_slack)
      << both;
  EXPECT_EQ(measured["not_placed_reasons"], simulated["not_placed_reasons"]) << both;

  // compare --measured puts the same figures side by side: the counts agree exactly.
  const auto m = slicelab({"compare", "--measured", path("out"), yaml, "--format", "json"},
                          test::fake_gpu_env());
  ASSERT_EQ(m.status.exit_code, 0) << m.output;
  const auto doc = nlohmann::json::parse(m.output.substr(m.output.find('{')));
  size_t counts = 0;
  for (const auto& row : doc["policies"][0]["metrics"]) {
    const std::string key = row["key"];
    if (key.rfind("pods.", 0) != 0) continue;
    ++counts;
    EXPECT_EQ(row["error"], 0) << row.dump();
  }
  EXPECT_GE(counts, 3U) << m.output;
}

}  // namespace
}  // namespace slicelab
