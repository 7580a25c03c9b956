// The local backend's parts, GPU-free: NVML detection through the fake NVML, the environment
// of each mechanism, process groups killed on timeout, and the MPS daemon's folders.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "backends/local/child_process.h"
#include "backends/local/gpu_detection.h"
#include "backends/local/isolation.h"
#include "backends/local/local_cluster.h"
#include "backends/local/mps_daemon.h"
#include "tests/local/local_test_support.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

class Processes : public TempDir {};

const std::string kFakeNvml = std::string(SLICELAB_FAKES) + "/libnvidia-ml.so.1";

TEST(GpuDetection, FindsTheFakeGpusWithNamesUuidsAndMemory) {
  setenv("SLICELAB_FAKE_DEVICES", "3", 1);
  setenv("SLICELAB_FAKE_DEVICE_MEM", "4294967296", 1);
  setenv("SLICELAB_FAKE_GPU_NAME", "NVIDIA Fake H100", 1);
  unsetenv("SLICELAB_FAKE_MIG_INSTANCES");
  const GpuDetection d = detect_gpus(kFakeNvml);
  ASSERT_TRUE(d.ok()) << d.problem;
  ASSERT_EQ(d.gpus.size(), 3u);
  EXPECT_EQ(d.gpus[2].index, 2u);
  EXPECT_EQ(d.gpus[0].name, "NVIDIA Fake H100");
  EXPECT_EQ(d.gpus[1].uuid, "GPU-fake-0001");
  EXPECT_EQ(d.gpus[0].memory_bytes, uint64_t{4} << 30);
  EXPECT_FALSE(d.gpus[0].mig_enabled);
  EXPECT_TRUE(d.gpus[0].mig_instances.empty());
  unsetenv("SLICELAB_FAKE_GPU_NAME");
}

TEST(GpuDetection, ListsExistingMigInstances) {
  setenv("SLICELAB_FAKE_DEVICES", "1", 1);
  setenv("SLICELAB_FAKE_DEVICE_MEM", "4294967296", 1);
  setenv("SLICELAB_FAKE_MIG_INSTANCES", "2", 1);
  const GpuDetection d = detect_gpus(kFakeNvml);
  unsetenv("SLICELAB_FAKE_MIG_INSTANCES");
  ASSERT_TRUE(d.ok()) << d.problem;
  ASSERT_EQ(d.gpus.size(), 1u);
  EXPECT_TRUE(d.gpus[0].mig_enabled);
  ASSERT_EQ(d.gpus[0].mig_instances.size(), 2u);
  EXPECT_EQ(d.gpus[0].mig_instances[1].uuid, "MIG-fake-0-1");
  EXPECT_EQ(d.gpus[0].mig_instances[0].memory_bytes, uint64_t{2} << 30);
  // MIG as the mechanism: the instances are the schedulable GPUs.
  const LocalCluster lc = make_local_cluster(d.gpus, Mechanism::kMig, GpuCatalog::builtin(), false);
  EXPECT_EQ(lc.device_ids, (std::vector<std::string>{"MIG-fake-0-0", "MIG-fake-0-1"}));
  EXPECT_EQ(lc.spec.gpu_count(), 2u);
}

TEST(GpuDetection, NoLibraryGivesAClearMessage) {
  const GpuDetection d = detect_gpus("/nonexistent/libnvidia-ml.so.1");
  EXPECT_FALSE(d.ok());
  EXPECT_TRUE(d.gpus.empty());
  EXPECT_NE(d.problem.find("no NVIDIA driver"), std::string::npos) << d.problem;
  EXPECT_NE(d.problem.find("/nonexistent/libnvidia-ml.so.1"), std::string::npos) << d.problem;
}

TEST(LocalCluster, MigWithoutInstancesIsRefusedNotReconfigured) {
  DetectedGpu g;
  g.name = "A100-80GB";
  g.memory_bytes = uint64_t{80} << 30;
  for (const bool allow : {false, true}) {
    try {
      make_local_cluster({g}, Mechanism::kMig, GpuCatalog::builtin(), allow);
      FAIL() << "expected an error";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("no MIG instances"), std::string::npos) << e.what();
    }
  }
  const LocalCluster lc =
      make_local_cluster({g, g}, Mechanism::kWholeCard, GpuCatalog::builtin(), false);
  EXPECT_EQ(lc.device_ids, (std::vector<std::string>{"0", "0"}));  // both index 0 as given
  EXPECT_EQ(lc.catalog.find("A100-80GB")->memory_mib, 80 * 1024);
}

TEST(Isolation, EachMechanismSetsItsEnvironment) {
  PodIsolation p;
  p.devices = {"1", "3"};
  p.gpu_milli = 1000;
  p.mechanism = Mechanism::kWholeCard;
  EnvMap e = isolation_environment(p);
  EXPECT_EQ(e["CUDA_VISIBLE_DEVICES"], "1,3");
  EXPECT_EQ(e["CUDA_DEVICE_ORDER"], "PCI_BUS_ID");
  EXPECT_EQ(e.count("LD_PRELOAD"), 0u);

  p.devices = {"2"};
  p.gpu_milli = 250;
  p.gpu_memory_mib = 3000;
  p.mechanism = Mechanism::kInterposer;
  p.interposer_library = "/x/libslicelab-interposer.so";
  p.shared_region = "/tmp/a.region";
  e = isolation_environment(p);
  EXPECT_EQ(e["LD_PRELOAD"], "/x/libslicelab-interposer.so");
  EXPECT_EQ(e["SLICELAB_SM_LIMIT"], "25");
  EXPECT_EQ(e["SLICELAB_MEMORY_LIMIT"], "3000m");
  EXPECT_EQ(e["SLICELAB_SHARED_REGION"], "/tmp/a.region");

  p.mechanism = Mechanism::kMps;
  p.gpu_milli = 333;  // rounded up: a pod never gets less than it claimed
  p.mps_pipe_dir = "/tmp/p";
  p.mps_log_dir = "/tmp/l";
  e = isolation_environment(p);
  EXPECT_EQ(e["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"], "34");
  EXPECT_EQ(e["CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"], "0=3000M");
  EXPECT_EQ(e["CUDA_MPS_PIPE_DIRECTORY"], "/tmp/p");
  EXPECT_EQ(e.count("LD_PRELOAD"), 0u);

  p.mechanism = Mechanism::kTimeSlice;
  e = isolation_environment(p);
  EXPECT_EQ(e.count("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"), 0u);
  EXPECT_EQ(e.count("SLICELAB_SM_LIMIT"), 0u);

  EXPECT_EQ(mechanism_for_sharing("gpu-share"), Mechanism::kInterposer);
  EXPECT_EQ(mechanism_for_sharing("time-slice"), Mechanism::kTimeSlice);
  EXPECT_FALSE(mechanism_for_sharing("bogus"));
}

TEST_F(Processes, ChildProcessKillsAGroupThatIgnoresSigterm) {
  // The shell ignores SIGTERM and so does its child: only SIGKILL to the group ends both.
  const std::string pidfile = path("grandchild.pid");
  ChildProcess p(
      {"/bin/sh", "-c", "trap '' TERM; (trap '' TERM; sleep 60) & echo $! > " + pidfile + "; wait"},
      current_environment(), path("log"));
  while (!fs::exists(pidfile) || fs::file_size(pidfile) == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const pid_t grandchild = std::stoi(test::read_file(pidfile));
  const auto t0 = std::chrono::steady_clock::now();
  const ExitStatus s = p.terminate(std::chrono::milliseconds(200));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(s.signal, SIGKILL) << s.describe();
  for (int i = 0; i < 200 && kill(grandchild, 0) == 0; ++i)  // reaped by init: give it a moment
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_NE(kill(grandchild, 0), 0) << "the grandchild survived its group's SIGKILL";
}

TEST_F(Processes, ChildProcessReportsExitCodesAndOutput) {
  ChildProcess p({"/bin/sh", "-c", "echo hello $FOO; exit 7"}, {{"FOO", "bar"}}, path("log"));
  const auto s = p.wait_for(std::chrono::seconds(10));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->exit_code, 7);
  EXPECT_EQ(test::read_file(path("log")), "hello bar\n");
}

TEST_F(Processes, MpsDaemonGetsItsOwnFoldersAndRemovesThem) {
  const std::string log = path("mps.log");
  setenv("FAKE_MPS_LOG", log.c_str(), 1);
  std::string pipe, logdir;
  {
    MpsDaemon d(SLICELAB_FAKE_MPS, "0,1", dir_.string());
    pipe = d.pipe_dir();
    logdir = d.log_dir();
    EXPECT_TRUE(fs::is_directory(pipe));
    EXPECT_TRUE(fs::is_directory(logdir));
    d.command("set_default_active_thread_percentage 50");
    const std::vector<int64_t> memory{81920, 40960};
    EXPECT_EQ(d.set_replica_limits(3, memory),
              (std::vector<std::string>{"set_default_active_thread_percentage 33",
                                        "set_default_device_pinned_mem_limit 0 27306M",
                                        "set_default_device_pinned_mem_limit 1 13653M"}));
    EXPECT_THROW(d.set_replica_limits(0, memory), std::invalid_argument);
  }  // destructor: quit and remove, as on an error path
  EXPECT_FALSE(fs::exists(pipe));
  EXPECT_FALSE(fs::exists(logdir));
  const std::string sent = test::read_file(log);
  EXPECT_NE(sent.find("start pipe=" + pipe), std::string::npos) << sent;
  EXPECT_NE(sent.find("visible=0,1"), std::string::npos) << sent;
  EXPECT_NE(sent.find("cmd set_default_active_thread_percentage 50"), std::string::npos) << sent;
  EXPECT_NE(sent.find("cmd set_default_device_pinned_mem_limit 1 13653M"), std::string::npos)
      << sent;
  EXPECT_NE(sent.find("cmd quit"), std::string::npos) << sent;

  setenv("FAKE_MPS_FAIL_START", "1", 1);
  EXPECT_THROW(MpsDaemon(SLICELAB_FAKE_MPS, "", dir_.string()), std::runtime_error);
  unsetenv("FAKE_MPS_FAIL_START");
  unsetenv("FAKE_MPS_LOG");
  size_t left = 0;  // a daemon that failed to start leaves no folder behind either
  for (const auto& e : fs::directory_iterator(dir_))
    left += e.path().filename().string().rfind("slicelab-mps-", 0) == 0;
  EXPECT_EQ(left, 0u);
  if (find_mps_control("").empty()) {  // true on GPU-free machines: a clear error
    EXPECT_THROW(MpsDaemon("", "", dir_.string()), std::runtime_error);
  }
}

}  // namespace
}  // namespace slicelab
