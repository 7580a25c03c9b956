// The device plugin end to end, one test per mode: a fake kubelet registers the node's real
// resources (fake NVML GPUs), reads ListAndWatch while the fake NVML reports an XID, asks for a
// preferred allocation and allocates; the fake-driver client then runs with exactly the answer's
// environment and mounts, and its caps must hold. Also the `slicelab` binary itself.
#include <grpc/grpc.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backends/device_plugin/device_health.h"
#include "backends/device_plugin/node_resources.h"
#include "backends/device_plugin/nvml_health_monitor.h"
#include "backends/device_plugin/plugin_config.h"
#include "backends/device_plugin/plugin_runner.h"
#include "backends/device_plugin/pod_source_api.h"
#include "backends/k8s/api_client.h"
#include "backends/k8s/gpu_assignment.h"
#include "backends/local/gpu_detection.h"
#include "tests/support/container_runner.h"
#include "tests/support/fake_api_server.h"
#include "tests/support/fake_kubelet.h"

extern char** environ;

namespace slicelab::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Strings = std::vector<std::string>;
namespace dp = device_plugin;

const std::string kE2eNvml = std::string(SLICELAB_FAKES) + "/libnvidia-ml.so.1";

std::string health_in(const std::vector<v1beta1::Device>& list, const std::string& id) {
  for (const auto& d : list)
    if (d.id() == id) return d.health();
  return "absent";
}

// The kubelet's answer for one container, as the runtime receives it.
dp::ContainerAllocation as_allocation(const v1beta1::ContainerAllocateResponse& r) {
  dp::ContainerAllocation a;
  for (const auto& [k, v] : r.envs()) a.envs[k] = v;
  for (const auto& m : r.mounts())
    a.mounts.push_back({m.container_path(), m.host_path(), m.read_only()});
  for (const auto& d : r.devices())
    a.devices.push_back({d.container_path(), d.host_path(), d.permissions()});
  for (const auto& [k, v] : r.annotations()) a.annotations[k] = v;
  for (const auto& c : r.cdi_devices()) a.cdi_devices.push_back(c.name());
  return a;
}

// A node of fake GPUs served to a fake kubelet: the config, the GPUs NVML finds, the health
// monitor on the fake NVML's event file, the runner.
class PluginEndToEnd : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { [[maybe_unused]] static const bool once = (grpc_init(), true); }
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "sle2e-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    std::filesystem::create_directory(dir_ / "plugins");
    events_ = (dir_ / "nvml-events").string();
    std::ofstream(events_).flush();
    setenv("SLICELAB_NVML_LIBRARY", kE2eNvml.c_str(), 1);
    setenv("SLICELAB_FAKE_NVML_EVENTS", events_.c_str(), 1);
    setenv("SLICELAB_FAKE_DEVICES", "4", 1);
    setenv("SLICELAB_FAKE_DEVICE_MEM", "2147483648", 1);  // 2 GiB
    unsetenv("SLICELAB_FAKE_MIG_STATE");
    unsetenv("SLICELAB_FAKE_MIG_INSTANCES");
  }
  void TearDown() override {
    runner_.reset();
    if (monitor_) monitor_->stop();
    monitor_.reset();
    kubelet_.reset();
    resources_.clear();
    health_.stop();
    for (const char* v : {"SLICELAB_FAKE_NVML_EVENTS", "SLICELAB_FAKE_DEVICES",
                          "SLICELAB_FAKE_DEVICE_MEM", "SLICELAB_FAKE_MIG_STATE", "FAKE_MPS_LOG"})
      unsetenv(v);
    std::filesystem::remove_all(dir_);
  }

  // Starts everything for `config_text`; returns when every resource registered.
  void serve(const std::string& config_text, dp::PodSource* pods = nullptr) {
    config_ = dp::parse_node_plugin_config(config_text, "node.yaml");
    const GpuDetection d = detect_gpus();
    ASSERT_TRUE(d.ok()) << d.problem;
    gpus_ = d.gpus;
    resources_ = dp::make_node_resources(config_, gpus_, health_, pods);
    dp::NvmlHealthOptions health_options;
    health_options.library = health_library_;
    health_options.wait_timeout = milliseconds(50);
    health_options.log = [](const std::string&) {};
    monitor_ = std::make_unique<dp::NvmlHealthMonitor>(health_, gpus_, health_options);
    ASSERT_TRUE(monitor_->start()) << monitor_->problem();
    kubelet_ = std::make_unique<FakeKubelet>(dir_ / "plugins");
    dp::PluginRunnerOptions options;
    options.plugin_dir = dir_ / "plugins";
    options.register_timeout = milliseconds(500);
    options.retry_initial = milliseconds(20);
    options.retry_max = milliseconds(200);
    runner_ = std::make_unique<dp::PluginRunner>(resources_, health_, options);
    runner_->start();
    ASSERT_TRUE(kubelet_->wait_for_registrations(resources_.size(), seconds(5)));
  }
  std::shared_ptr<FakePluginClient> client(const std::string& resource) {
    auto c = kubelet_->client(resource);
    EXPECT_NE(c, nullptr) << resource << " never registered";
    return c;
  }
  // The first list ListAndWatch sends.
  std::vector<v1beta1::Device> first_list(FakePluginClient& c) {
    auto list = c.next_device_list(seconds(5));
    EXPECT_TRUE(list.has_value());
    return list.value_or(std::vector<v1beta1::Device>{});
  }
  // Appends a line to the fake NVML's event file ("xid 2 79", "lost 1").
  void nvml_event(const std::string& line) {
    std::ofstream(events_, std::ios::app) << line << "\n";
  }
  // Reads lists until `id` is reported as `health` (or 5 s pass).
  bool reported(FakePluginClient& c, const std::string& id, const std::string& health) {
    const auto until = std::chrono::steady_clock::now() + seconds(5);
    while (std::chrono::steady_clock::now() < until) {
      const auto list = c.next_device_list(milliseconds(200));
      if (list && health_in(*list, id) == health) return true;
    }
    return false;
  }
  // The one container's allocation of `ids`, through gRPC.
  dp::ContainerAllocation allocate(FakePluginClient& c, const Strings& ids) {
    const auto r = c.allocate({ids});
    EXPECT_TRUE(r.ok()) << r.status.error_message();
    EXPECT_EQ(r.response.container_responses_size(), 1);
    if (!r.ok() || r.response.container_responses_size() != 1) return {};
    return as_allocation(r.response.container_responses(0));
  }
  ContainerResult run_client(const dp::ContainerAllocation& a, const Strings& args,
                             ContainerEnv extra = {}) {
    ContainerOptions options;
    options.fakes_dir = SLICELAB_FAKES;
    options.node_env = {{"SLICELAB_FAKE_DEVICES", "4"}, {"SLICELAB_FAKE_DEVICE_MEM", "2147483648"}};
    for (auto& [k, v] : extra) options.node_env[k] = v;
    Strings argv{SLICELAB_CLIENT};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_in_container(a, argv, options);
  }

  // A pending pod on n1 asking for one nvidia.com/gpu, with the extender's assignment.
  static nlohmann::json share_pod(const std::string& name, const std::string& created,
                                  const k8s::AssignedGpu& gpu) {
    return {{"metadata",
             {{"name", name},
              {"namespace", "team"},
              {"uid", "uid-" + name},
              {"creationTimestamp", created},
              {"annotations",
               {{std::string(k8s::kGpuAssignmentAnnotation),
                 k8s::to_annotation(k8s::GpuAssignment{"n1", "fgd", "hami", {gpu}})}}}}},
            {"spec",
             {{"nodeName", "n1"},
              {"containers",
               nlohmann::json::array({{{"name", "main"},
                                       {"image", "cuda"},
                                       {"resources", {{"limits", {{"nvidia.com/gpu", "1"}}}}}}})}}},
            {"status", {{"phase", "Pending"}}}};
  }
  // Serves interposer shares (4 per GPU) of node n1, whose pods `api` holds.
  void serve_shares(const FakeApiServer& api) {
    k8s::ApiConfig api_config;
    api_config.server = api.url();
    api_client_ = std::make_unique<k8s::ApiClient>(api_config);
    pods_ = dp::make_api_pod_source(*api_client_, "n1");
    const std::string root = dir_.string();
    serve(
        "version: v1\nslicelab:\n  nodeName: n1\n  interposer:\n    splitCount: 4\n"
        "    hostLibrary: " SLICELAB_INTERPOSER "\n    hostPreloadDir: " +
            root + "/preload\n    hostRegionRoot: " + root + "/regions\n",
        pods_.get());
  }

  std::filesystem::path dir_;
  std::string events_;
  // The NVML the health monitor watches the GPUs through: the fake's, whose events the tests
  // write; the real one where the GPUs are real (RealGpuPlugin).
  std::string health_library_ = kE2eNvml;
  std::unique_ptr<k8s::ApiClient> api_client_;
  std::unique_ptr<dp::PodSource> pods_;
  dp::NodePluginConfig config_;
  std::vector<DetectedGpu> gpus_;
  dp::DeviceHealth health_;
  std::vector<std::unique_ptr<dp::ResourcePlugin>> resources_;
  std::unique_ptr<dp::NvmlHealthMonitor> monitor_;
  std::unique_ptr<FakeKubelet> kubelet_;
  std::unique_ptr<dp::PluginRunner> runner_;
};

constexpr uint64_t kOneGiB = uint64_t{1} << 30;

TEST_F(PluginEndToEnd, WholeGpus) {
  serve("version: v1\n");
  auto c = client("nvidia.com/gpu");
  ASSERT_NE(c, nullptr);
  const auto list = first_list(*c);
  ASSERT_EQ(list.size(), 4u);
  for (const auto& d : list) EXPECT_EQ(d.health(), "Healthy") << d.id();
  nvml_event("xid 2 79");  // fallen off the bus
  EXPECT_TRUE(reported(*c, "GPU-fake-0002", "Unhealthy"));
  EXPECT_EQ(health_.reason("GPU-fake-0002"), "XID 79");
  nvml_event("xid 1 13");  // an application's own error: the GPU stays healthy
  // The kubelet offers what is healthy; no topology: the lowest indices, must_include first.
  const auto p =
      c->preferred({"GPU-fake-0000", "GPU-fake-0001", "GPU-fake-0003"}, {"GPU-fake-0003"}, 2);
  ASSERT_TRUE(p.ok()) << p.status.error_message();
  ASSERT_EQ(p.response.container_responses_size(), 1);
  const auto& ids = p.response.container_responses(0).deviceids();
  ASSERT_EQ(ids.size(), 2);
  EXPECT_EQ(ids[0], "GPU-fake-0003");
  EXPECT_EQ(ids[1], "GPU-fake-0000");
  EXPECT_TRUE(health_.healthy("GPU-fake-0001"));
  const dp::ContainerAllocation a = allocate(*c, {ids[0], ids[1]});
  EXPECT_EQ(a.envs.at("NVIDIA_VISIBLE_DEVICES"), "GPU-fake-0003,GPU-fake-0000");
  EXPECT_EQ(a.envs.at("CUDA_VISIBLE_DEVICES"), "GPU-fake-0003,GPU-fake-0000");
  // A whole card: nothing preloaded, the card's memory is the container's.
  const ContainerResult r = run_client(a, {"try", std::to_string(kOneGiB + kOneGiB / 2)});
  EXPECT_EQ(r.env.count("LD_PRELOAD") ? r.env.at("LD_PRELOAD") : "", "");
  EXPECT_NE(r.output.find("result=0 "), std::string::npos) << r.output;
  const auto bad = c->allocate({{"GPU-fake-0009"}});
  EXPECT_EQ(bad.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(bad.status.error_message(),
            "Allocate: container request 1 asks for unknown device 'GPU-fake-0009'; the plugin "
            "advertises no such device");
}

TEST_F(PluginEndToEnd, TimeSliceReplicas) {
  serve(
      "version: v1\nsharing:\n  timeSlicing:\n    renameByDefault: true\n"
      "    failRequestsGreaterThanOne: true\n    resources:\n    - name: nvidia.com/gpu\n"
      "      replicas: 3\n");
  auto c = client("nvidia.com/gpu.shared");
  ASSERT_NE(c, nullptr);
  const auto list = first_list(*c);
  ASSERT_EQ(list.size(), 12u);
  EXPECT_EQ(health_in(list, "GPU-fake-0001::2"), "Healthy");
  nvml_event("lost 1");
  // Every replica of the lost GPU goes, the others stay.
  EXPECT_TRUE(reported(*c, "GPU-fake-0001::0", "Unhealthy"));
  const auto two = c->allocate({{"GPU-fake-0000::0", "GPU-fake-0000::1"}});
  EXPECT_EQ(two.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(two.status.error_message().find("maximum request size for shared resources is 1"),
            std::string::npos)
      << two.status.error_message();
  const dp::ContainerAllocation a = allocate(*c, {"GPU-fake-0002::1"});
  EXPECT_EQ(a.envs.at("NVIDIA_VISIBLE_DEVICES"), "GPU-fake-0002");
  // Time-slicing caps nothing: the container may take the whole card's memory.
  const ContainerResult r = run_client(a, {"try", std::to_string(kOneGiB + kOneGiB / 2)});
  EXPECT_NE(r.output.find("result=0 "), std::string::npos) << r.output;
}

TEST_F(PluginEndToEnd, MpsReplicas) {
  const std::string mps_root = (dir_ / "mps").string();
  const std::string log = (dir_ / "mps.log").string();
  setenv("FAKE_MPS_LOG", log.c_str(), 1);
  serve(
      "version: v1\nsharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n"
      "      replicas: 4\nslicelab:\n  mpsRoot: " +
      mps_root + "\n  mpsControl: " + SLICELAB_FAKE_MPS + "\n");
  auto c = client("nvidia.com/gpu");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(first_list(*c).size(), 16u);
  const dp::ContainerAllocation a = allocate(*c, {"GPU-fake-0003::2"});
  const std::string pipe = mps_root + "/nvidia.com/gpu/pipe";
  EXPECT_EQ(a.envs.at("CUDA_MPS_PIPE_DIRECTORY"), pipe);
  EXPECT_EQ(a.envs.at("NVIDIA_VISIBLE_DEVICES"), "GPU-fake-0003");
  std::ifstream in(log);
  std::stringstream sent;
  sent << in.rdbuf();
  // NVIDIA's limits for 4 replicas of 2048 MiB GPUs: a quarter of the threads and the memory.
  EXPECT_NE(sent.str().find("cmd set_default_active_thread_percentage 25\n"), std::string::npos)
      << sent.str();
  EXPECT_NE(sent.str().find("cmd set_default_device_pinned_mem_limit 3 512M\n"), std::string::npos)
      << sent.str();
  // The client reaches the daemon through the mounted pipe folder; its memory limit holds.
  const ContainerResult over = run_client(a, {"try", std::to_string((512u << 20) + 1)});
  EXPECT_NE(over.output.find("result=2 "), std::string::npos) << over.output;
  const ContainerResult under = run_client(a, {"try", std::to_string(512u << 20)});
  EXPECT_NE(under.output.find("result=0 "), std::string::npos) << under.output;
  const auto two = c->allocate({{"GPU-fake-0000::0", "GPU-fake-0000::1"}});
  EXPECT_EQ(two.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(PluginEndToEnd, MigDevicesMixedStrategy) {
  const std::string state = (dir_ / "mig-state").string();
  std::ofstream(state) << "0 3g.40gb,1g.10gb\n1 1g.10gb,1g.10gb\n";
  setenv("SLICELAB_FAKE_MIG_STATE", state.c_str(), 1);
  setenv("SLICELAB_FAKE_DEVICES", "2", 1);
  serve("version: v1\nflags:\n  migStrategy: mixed\n");
  auto small = client("nvidia.com/mig-1g.10gb");
  auto large = client("nvidia.com/mig-3g.40gb");
  ASSERT_NE(small, nullptr);
  ASSERT_NE(large, nullptr);
  const auto list = first_list(*small);
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(health_in(list, "MIG-fake-1-0"), "Healthy");
  EXPECT_EQ(first_list(*large).size(), 1u);
  // An XID inside GPU instance 1 of GPU 1 (slot 0): only that instance is unhealthy.
  nvml_event("xid 1 79 1 0");
  EXPECT_TRUE(reported(*small, "MIG-fake-1-0", "Unhealthy"));
  EXPECT_TRUE(health_.healthy("MIG-fake-1-1"));
  EXPECT_TRUE(health_.healthy("MIG-fake-0-1"));
  const dp::ContainerAllocation a = allocate(*small, {"MIG-fake-1-1"});
  EXPECT_EQ(a.envs.at("NVIDIA_VISIBLE_DEVICES"), "MIG-fake-1-1");
  EXPECT_EQ(a.envs.at("CUDA_VISIBLE_DEVICES"), "MIG-fake-1-1");
  const ContainerResult r = run_client(a, {"try", std::to_string(64u << 20)});
  EXPECT_NE(r.output.find("result=0 "), std::string::npos) << r.output;
}

TEST_F(PluginEndToEnd, InterposerSharesCappedFromTheExtendersAnnotation) {
  FakeApiServer api;
  api.add_pod(share_pod("first", "2026-01-01T00:00:01Z", {1, "GPU-fake-0001", 64, 30}));
  api.add_pod(share_pod("second", "2026-01-01T00:00:02Z", {2, "GPU-fake-0002", 96, 50}));
  serve_shares(api);
  auto c = client("nvidia.com/gpu");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(first_list(*c).size(), 16u);
  // The kubelet picks any share; the annotation says GPU 1 with 64 MiB and 30 % of its cores.
  const dp::ContainerAllocation a = allocate(*c, {"GPU-fake-0003::share-2"});
  EXPECT_EQ(a.envs.at("NVIDIA_VISIBLE_DEVICES"), "GPU-fake-0001");
  EXPECT_EQ(a.envs.at("CUDA_DEVICE_MEMORY_LIMIT_0"), "64m");
  EXPECT_EQ(a.envs.at("SLICELAB_MEMORY_LIMIT_0"), "64m");
  EXPECT_EQ(a.envs.at("CUDA_DEVICE_SM_LIMIT"), "30");
  EXPECT_EQ(api.pod("team", "first")["metadata"]["annotations"].value(
                std::string(dp::kGpuAllocatedAnnotation), ""),
            "true");
  const ContainerResult over = run_client(a, {"try", std::to_string((64u << 20) + 1)});
  EXPECT_NE(over.output.find("result=2 "), std::string::npos) << over.output;
  const ContainerResult under = run_client(a, {"try", std::to_string(64u << 20)});
  EXPECT_NE(under.output.find("result=0 used=" + std::to_string(64u << 20)), std::string::npos)
      << under.output;
  const ContainerResult share =
      run_client(a, {"share", "20000"},
                 {{"SLICELAB_FAKE_VIRTUAL_TIME", "1"}, {"SLICELAB_TEST_FAKE_CLOCK", "1"}});
  const size_t at = share.output.find("share=");
  ASSERT_NE(at, std::string::npos) << share.output;
  EXPECT_NEAR(std::strtod(share.output.c_str() + at + 6, nullptr), 0.30, 0.05) << share.output;
  // The next Allocate is the next pod's: GPU 2, 96 MiB.
  const dp::ContainerAllocation b = allocate(*c, {"GPU-fake-0000::share-0"});
  EXPECT_EQ(b.envs.at("NVIDIA_VISIBLE_DEVICES"), "GPU-fake-0002");
  EXPECT_EQ(b.envs.at("SLICELAB_MEMORY_LIMIT_0"), "96m");
  // No pod left: the kubelet gets an error, not devices without caps.
  const auto none = c->allocate({{"GPU-fake-0000::share-1"}});
  EXPECT_FALSE(none.ok());
}

TEST_F(PluginEndToEnd, KubeletRestartReRegistersTheRealResources) {
  serve("version: v1\n");
  kubelet_->stop();
  kubelet_.reset();
  kubelet_ = std::make_unique<FakeKubelet>(dir_ / "plugins");
  ASSERT_TRUE(kubelet_->wait_for_registrations(1, seconds(5)));
  auto c = client("nvidia.com/gpu");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(first_list(*c).size(), 4u);
  EXPECT_EQ(allocate(*c, {"GPU-fake-0000"}).envs.at("NVIDIA_VISIBLE_DEVICES"), "GPU-fake-0000");
}

// `slicelab serve device-plugin` as a process: registers, serves, re-registers after a kubelet
// restart, and ends on SIGTERM.
TEST_F(PluginEndToEnd, TheBinaryServesRegistersAgainAndStopsOnSigterm) {
  kubelet_ = std::make_unique<FakeKubelet>(dir_ / "plugins");
  const std::string out = (dir_ / "plugin.log").string();
  const std::string plugins = (dir_ / "plugins").string();
  const std::string command = std::string("exec '") + SLICELAB_BINARY +
                              "' serve device-plugin --plugin-dir '" + plugins + "' 2> '" + out +
                              "'";
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  const bool registered = kubelet_->wait_for_registrations(1, seconds(10));
  std::shared_ptr<FakePluginClient> c = registered ? kubelet_->client("nvidia.com/gpu") : nullptr;
  if (c) {
    EXPECT_EQ(first_list(*c).size(), 4u);
    const auto r = c->allocate({{"GPU-fake-0001"}});
    EXPECT_TRUE(r.ok()) << r.status.error_message();
    kubelet_->stop();
    kubelet_.reset();
    kubelet_ = std::make_unique<FakeKubelet>(dir_ / "plugins");
    EXPECT_TRUE(kubelet_->wait_for_registrations(1, seconds(10)));
  }
  const auto stopped_at = std::chrono::steady_clock::now();
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const auto took = std::chrono::steady_clock::now() - stopped_at;
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(registered) << text.str();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << text.str();
  EXPECT_LT(took, seconds(3));
  EXPECT_NE(text.str().find("serving nvidia.com/gpu (4 devices)"), std::string::npos) << text.str();
}

// On a real GPU (skipped, saying why, without one): the plugin serves NVML's GPU 0 as
// interposer shares, the extender's annotation gives a pod 1 GiB of it, and the real kernel
// program, started with exactly the allocation, cannot hold 2 GiB but can hold 512 MiB.
class RealGpuPlugin : public PluginEndToEnd {
 protected:
  void SetUp() override {
    PluginEndToEnd::SetUp();
    unsetenv("SLICELAB_NVML_LIBRARY");
    unsetenv("SLICELAB_FAKE_NVML_EVENTS");
    // The real GPU's health from the real NVML: the fake one knows none of its UUIDs and would
    // report it lost (scripts/gpu-check's first run on an H200 found this).
    health_library_ = "libnvidia-ml.so.1";
    const GpuDetection d = detect_gpus("libnvidia-ml.so.1");
    if (!d.ok()) GTEST_SKIP() << "skipped: no GPU (" << d.problem << ")";
    if (std::string(SLICELAB_KERNEL_BINARY).empty())
      GTEST_SKIP() << "skipped: slicelab-kernel was not built (no nvcc)";
    gpu_ = d.gpus.front();
  }
  ContainerResult run_kernel(const dp::ContainerAllocation& a, const Strings& args) {
    ContainerOptions options;  // no fakes: the node's own driver
    options.timeout = seconds(120);
    Strings argv{SLICELAB_KERNEL_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_in_container(a, argv, options);
  }
  DetectedGpu gpu_;
};

TEST_F(RealGpuPlugin, ServesTheGpuAndCapsAPodsMemory) {
  FakeApiServer api;
  api.add_pod(share_pod("capped", "2026-01-01T00:00:01Z",
                        {static_cast<int>(gpu_.index), gpu_.uuid, 1024, 30}));
  serve_shares(api);
  auto c = client("nvidia.com/gpu");
  ASSERT_NE(c, nullptr);
  const auto list = first_list(*c);
  EXPECT_EQ(health_in(list, gpu_.uuid + "::share-0"), "Healthy");
  const dp::ContainerAllocation a = allocate(*c, {gpu_.uuid + "::share-1"});
  EXPECT_EQ(a.envs.at("NVIDIA_VISIBLE_DEVICES"), gpu_.uuid);
  const ContainerResult over = run_kernel(a, {"fma", "--reps", "5", "--hold-mib", "2048"});
  EXPECT_NE(over.exit_code, 0) << over.output;
  EXPECT_NE(over.output.find("hold allocation"), std::string::npos) << over.output;
  const ContainerResult under = run_kernel(a, {"fma", "--reps", "5", "--hold-mib", "512"});
  EXPECT_EQ(under.exit_code, 0) << under.output;
  RecordProperty("gpu", gpu_.name);
  RecordProperty("over_output", over.output.substr(0, 200));
}

}  // namespace
}  // namespace slicelab::testing
