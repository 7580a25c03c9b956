// Interposer shares of the node plugin: IDs and health, caps from the extender's annotation or
// the pod's requests, the pod source over the Kubernetes API, and the fake-driver client run
// with exactly what Allocate returned, applied as a container runtime would.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/device_plugin/interposer_share_resource.h"
#include "backends/device_plugin/pod_source_api.h"
#include "backends/k8s/api_client.h"
#include "backends/k8s/gpu_assignment.h"
#include "backends/local/isolation.h"
#include "tests/support/fake_api_server.h"
#include "tests/support/temp_files.h"

#if defined(SLICELAB_CLIENT) && defined(SLICELAB_INTERPOSER) && defined(SLICELAB_FAKES)
#include "tests/interposer/harness.h"
#include "tests/support/container_runner.h"
#define SHARE_TEST_CAN_RUN_CLIENT 1
#else
#define SHARE_TEST_CAN_RUN_CLIENT 0
#endif

namespace {

using nlohmann::json;
using slicelab::DetectedGpu;
using slicelab::k8s::AssignedGpu;
using slicelab::k8s::GpuAssignment;
namespace dp = slicelab::device_plugin;

constexpr uint64_t kShareGiB = uint64_t{1} << 30;

// A PodSource of a fixed list, in list order; records what was asked and marked.
class ListedPods : public dp::PodSource {
 public:
  std::optional<dp::PendingPod> pending_pod(std::string_view resource, int device_count) override {
    asked.emplace_back(std::string(resource), device_count);
    if (fail) throw std::runtime_error("the API server is away");
    for (const dp::PendingPod& p : pods)
      if (!marked.contains(p.uid) && p.gpus == device_count) return p;
    return std::nullopt;
  }
  void mark_allocated(const dp::PendingPod& pod) override { marked.insert(pod.uid); }

  std::vector<dp::PendingPod> pods;
  std::vector<std::pair<std::string, int>> asked;
  std::set<std::string> marked;
  bool fail = false;
};

dp::PendingPod share_listed_pod(const std::string& uid, int gpus) {
  dp::PendingPod p;
  p.namespace_name = "team";
  p.name = "pod-" + uid;
  p.uid = uid;
  p.gpus = gpus;
  return p;
}

std::vector<DetectedGpu> share_two_gpus() {
  std::vector<DetectedGpu> g(2);
  for (unsigned i = 0; i < 2; ++i) {
    g[i].index = i;
    g[i].name = "Fake GPU";
    g[i].uuid = "GPU-fake-000" + std::to_string(i);
    g[i].memory_bytes = 16 * kShareGiB;
  }
  return g;
}

std::string share_allocation_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const dp::AllocationError& e) {
    return e.what();
  }
  return "no error";
}

const dp::Mount* share_mount_at(const dp::ContainerAllocation& a,
                                const std::string& container_path) {
  for (const dp::Mount& m : a.mounts)
    if (m.container_path == container_path) return &m;
  return nullptr;
}

std::string share_file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class InterposerShareResourceTest : public slicelab::testing::TempFilesTest {
 protected:
  void SetUp() override {
    TempFilesTest::SetUp();
    config.mode = dp::ShareMode::kInterposer;
    config.interposer.split_count = 3;
    config.interposer.host_library = (dir_ / "lib" / "libslicelab-interposer.so").string();
    config.interposer.container_library = "/usr/local/lib/slicelab/libslicelab-interposer.so";
    config.interposer.host_preload_dir = (dir_ / "preload").string();
    config.interposer.host_region_root = (dir_ / "regions").string();
    config.interposer.container_region_dir = "/var/run/slicelab";
    gpus = share_two_gpus();
  }
  std::unique_ptr<dp::ResourcePlugin> make() {
    return dp::make_interposer_share_resource(config, gpus, health, pods);
  }

  dp::NodePluginConfig config;
  std::vector<DetectedGpu> gpus;
  dp::DeviceHealth health;
  ListedPods pods;
};

TEST_F(InterposerShareResourceTest, AdvertisesSplitCountSharesPerGpuAndFollowsTheGpusHealth) {
  gpus.push_back(gpus[0]);
  gpus.back().index = 2;
  gpus.back().uuid = "GPU-fake-0002";
  gpus.back().mig_enabled = true;  // served as MIG devices, not shared here
  auto r = make();
  EXPECT_EQ(r->resource_name(), "nvidia.com/gpu");
  auto d = r->devices();
  ASSERT_EQ(d.size(), 6u);
  EXPECT_EQ(d[0].id, "GPU-fake-0000::share-0");
  EXPECT_EQ(d[2].id, "GPU-fake-0000::share-2");
  EXPECT_EQ(d[3].id, "GPU-fake-0001::share-0");
  EXPECT_EQ(d[5].id, "GPU-fake-0001::share-2");
  for (const auto& x : d) EXPECT_TRUE(x.healthy) << x.id;
  health.mark_unhealthy("GPU-fake-0001", "XID 79");
  d = r->devices();
  for (size_t i = 0; i < d.size(); ++i) EXPECT_EQ(d[i].healthy, i < 3) << d[i].id;
  health.mark_healthy("GPU-fake-0001");
  for (const auto& x : r->devices()) EXPECT_TRUE(x.healthy) << x.id;
}

TEST_F(InterposerShareResourceTest, AnnotationNamesTheGpuAndItsCapsWhateverTheKubeletChose) {
  dp::PendingPod p = share_listed_pod("uid-a", 1);
  p.assignment = GpuAssignment{"n1", "fgd", "hami", {AssignedGpu{1, "GPU-fake-0001", 3000, 30}}};
  p.memory_mib = 999;  // the annotation wins over the requests
  pods.pods.push_back(p);
  auto r = make();
  const std::vector<std::string> ids{"GPU-fake-0000::share-2"};
  const dp::ContainerAllocation a = r->allocate(ids);
  ASSERT_EQ(pods.asked.size(), 1u);
  EXPECT_EQ(pods.asked[0], (std::pair<std::string, int>("nvidia.com/gpu", 1)));
  EXPECT_TRUE(pods.marked.contains("uid-a"));

  const std::map<std::string, std::string> want{
      {"NVIDIA_VISIBLE_DEVICES", "GPU-fake-0001"},
      {"CUDA_VISIBLE_DEVICES", "GPU-fake-0001"},
      {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"},
      {"SLICELAB_MEMORY_LIMIT_0", "3000m"},
      {"CUDA_DEVICE_MEMORY_LIMIT_0", "3000m"},
      {"SLICELAB_SM_LIMIT_0", "30"},
      {"CUDA_DEVICE_SM_LIMIT", "30"},
      {"SLICELAB_SHARED_REGION", "/var/run/slicelab/region.cache"},
      {"CUDA_DEVICE_MEMORY_SHARED_CACHE", "/var/run/slicelab/region.cache"}};
  EXPECT_EQ(a.envs, want);
  ASSERT_EQ(a.mounts.size(), 4u);
  const dp::Mount* lib = share_mount_at(a, config.interposer.container_library);
  ASSERT_NE(lib, nullptr);
  EXPECT_EQ(lib->host_path, config.interposer.host_library);
  EXPECT_TRUE(lib->read_only);
  const dp::Mount* preload = share_mount_at(a, "/etc/ld.so.preload");
  ASSERT_NE(preload, nullptr);
  EXPECT_EQ(preload->host_path, (dir_ / "preload" / "ld.so.preload").string());
  EXPECT_TRUE(preload->read_only);
  EXPECT_EQ(share_file_text(preload->host_path), config.interposer.container_library + "\n");
  const dp::Mount* region = share_mount_at(a, "/var/run/slicelab");
  ASSERT_NE(region, nullptr);
  EXPECT_FALSE(region->read_only);
  EXPECT_EQ(std::filesystem::path(region->host_path).parent_path(), dir_ / "regions");
  EXPECT_EQ(std::filesystem::path(region->host_path).filename().string(), "uid-a-0");
  struct stat st {};
  ASSERT_EQ(::lstat(region->host_path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 01777u);
  ASSERT_EQ(::lstat((dir_ / "regions").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  // The caps file: beside the region folder (not in it: the container may write there), 0444,
  // mounted read-only where the interposer looks, with the caps the environment also names.
  const dp::Mount* caps = share_mount_at(a, "/etc/slicelab/caps");
  ASSERT_NE(caps, nullptr);
  EXPECT_TRUE(caps->read_only);
  EXPECT_EQ(caps->host_path, region->host_path + ".caps");
  ASSERT_EQ(::lstat(caps->host_path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0444u);
  EXPECT_EQ(share_file_text(caps->host_path),
            "slicelab-interposer-caps 1\n"
            "# the interposer's caps for one container (docs/interposer.md); written by slicelab\n"
            "SLICELAB_SHARED_REGION=/var/run/slicelab/region.cache\n"
            "SLICELAB_MEMORY_LIMIT_0=3145728000\n"
            "SLICELAB_SM_LIMIT_0=30\n");
  EXPECT_TRUE(a.devices.empty());
  EXPECT_TRUE(a.cdi_devices.empty());
}

TEST_F(InterposerShareResourceTest, TheCapsFileNeverReplacesOrFollowsWhatIsThere) {
  pods.pods = {share_listed_pod("uid-k", 1), share_listed_pod("uid-l", 1)};
  std::filesystem::create_directories(dir_ / "regions");
  ::chmod((dir_ / "regions").c_str(), 0700);
  // Where the first container's caps file would go: someone's file, and a link to another.
  write("regions/uid-k-0.caps", "theirs\n");
  write("victim", "precious\n");
  // (The folder counter is the plugin's, not the pod's: the second container's is uid-l-1.)
  ASSERT_EQ(::symlink((dir_ / "victim").c_str(), (dir_ / "regions" / "uid-l-1.caps").c_str()), 0);
  auto r = make();
  const std::vector<std::string> one{"GPU-fake-0000::share-0"};
  std::string m = share_allocation_error_of([&] { r->allocate(one); });
  EXPECT_NE(m.find("cannot create the caps file " + (dir_ / "regions" / "uid-k-0.caps").string() +
                   ": File exists (not replaced)"),
            std::string::npos)
      << m;
  EXPECT_EQ(share_file_text((dir_ / "regions" / "uid-k-0.caps").string()), "theirs\n");
  EXPECT_FALSE(pods.marked.contains("uid-k"));
  pods.pods.erase(pods.pods.begin());
  m = share_allocation_error_of([&] { r->allocate(one); });
  EXPECT_NE(m.find("uid-l-1.caps: File exists (not replaced)"), std::string::npos) << m;
  EXPECT_EQ(share_file_text((dir_ / "victim").string()), "precious\n");
}

TEST_F(InterposerShareResourceTest, CapsTheInterposerCannotReadRefuseTheAllocation) {
  dp::PendingPod p = share_listed_pod("uid-m", 1);
  p.memory_mib = int64_t{1} << 40;  // 1 EiB: more than any caps file may hold
  pods.pods = {p};
  auto r = make();
  const std::vector<std::string> one{"GPU-fake-0000::share-0"};
  const std::string m = share_allocation_error_of([&] { r->allocate(one); });
  EXPECT_NE(m.find("pod team/pod-uid-m: a memory cap of 1099511627776 MiB is more than the "
                   "interposer reads (1 PiB)"),
            std::string::npos)
      << m;
  EXPECT_FALSE(pods.marked.contains("uid-m"));
}

TEST_F(InterposerShareResourceTest, TwoGpusByIndexGetPerDeviceCapsAndNoCommonHamiSmLimit) {
  dp::PendingPod p = share_listed_pod("uid-b", 2);
  // No UUIDs: the GPUs are found by index; listed order is the container's device order.
  p.assignment = GpuAssignment{"", "", "hami", {AssignedGpu{1, "", 2048, 20}, {0, "", 4096, 40}}};
  pods.pods.push_back(p);
  auto r = make();
  const std::vector<std::string> ids{"GPU-fake-0000::share-0", "GPU-fake-0000::share-1"};
  const auto a = r->allocate(ids);
  EXPECT_EQ(a.envs.at("CUDA_VISIBLE_DEVICES"), "GPU-fake-0001,GPU-fake-0000");
  EXPECT_EQ(a.envs.at("SLICELAB_MEMORY_LIMIT_0"), "2048m");
  EXPECT_EQ(a.envs.at("CUDA_DEVICE_MEMORY_LIMIT_1"), "4096m");
  EXPECT_EQ(a.envs.at("SLICELAB_SM_LIMIT_0"), "20");
  EXPECT_EQ(a.envs.at("SLICELAB_SM_LIMIT_1"), "40");
  // HAMi-core has one compute cap for all devices: with two different ones it gets none.
  EXPECT_EQ(a.envs.count("CUDA_DEVICE_SM_LIMIT"), 0u);
}

TEST_F(InterposerShareResourceTest, WithoutAnAnnotationTheRequestsCapTheKubeletsGpus) {
  dp::PendingPod p = share_listed_pod("uid-c", 1);
  p.memory_mib = 2048;
  p.cores = 50;
  pods.pods.push_back(p);
  dp::PendingPod q = share_listed_pod("uid-d", 1);
  q.memory_percent = 25;  // of a 16 GiB card: 4096 MiB
  q.cores = 100;          // a whole card's cores: no compute cap
  pods.pods.push_back(q);
  dp::PendingPod s = share_listed_pod("uid-e", 1);  // nothing asked: no caps at all
  pods.pods.push_back(s);
  auto r = make();
  const std::vector<std::string> first{"GPU-fake-0001::share-1"};
  auto a = r->allocate(first);
  EXPECT_EQ(a.envs.at("CUDA_VISIBLE_DEVICES"), "GPU-fake-0001");
  EXPECT_EQ(a.envs.at("SLICELAB_MEMORY_LIMIT_0"), "2048m");
  EXPECT_EQ(a.envs.at("SLICELAB_SM_LIMIT_0"), "50");
  EXPECT_EQ(a.envs.at("CUDA_DEVICE_SM_LIMIT"), "50");
  const std::vector<std::string> second{"GPU-fake-0000::share-0"};
  a = r->allocate(second);
  EXPECT_EQ(a.envs.at("CUDA_VISIBLE_DEVICES"), "GPU-fake-0000");
  EXPECT_EQ(a.envs.at("CUDA_DEVICE_MEMORY_LIMIT_0"), "4096m");
  EXPECT_EQ(a.envs.count("SLICELAB_SM_LIMIT_0"), 0u);
  EXPECT_EQ(a.envs.count("CUDA_DEVICE_SM_LIMIT"), 0u);
  a = r->allocate(second);
  for (const auto& [k, v] : a.envs) {
    EXPECT_EQ(k.find("_LIMIT"), std::string::npos) << k << "=" << v;
  }
  EXPECT_EQ(a.envs.at("SLICELAB_SHARED_REGION"), "/var/run/slicelab/region.cache");
  EXPECT_EQ(pods.marked.size(), 3u);
}

TEST_F(InterposerShareResourceTest, RefusalsAreAllocationErrorsWithTheReason) {
  auto r = make();
  const std::vector<std::string> one{"GPU-fake-0000::share-0"};
  std::string m = share_allocation_error_of([&] { r->allocate(one); });
  EXPECT_NE(m.find("no pending pod on this node asks for 1 nvidia.com/gpu"), std::string::npos)
      << m;
  const std::vector<std::string> bad{"GPU-fake-0000::share-3"};  // split_count is 3
  m = share_allocation_error_of([&] { r->allocate(bad); });
  EXPECT_NE(m.find("unknown device: GPU-fake-0000::share-3"), std::string::npos) << m;
  const std::vector<std::string> whole{"GPU-fake-0000"};
  m = share_allocation_error_of([&] { r->allocate(whole); });
  EXPECT_NE(m.find("unknown device"), std::string::npos) << m;
  pods.fail = true;
  m = share_allocation_error_of([&] { r->allocate(one); });
  EXPECT_NE(m.find("the API server is away"), std::string::npos) << m;
  pods.fail = false;
  dp::PendingPod p = share_listed_pod("uid-f", 1);
  p.assignment = GpuAssignment{"", "", "", {AssignedGpu{7, "GPU-elsewhere", 100, 10}}};
  pods.pods.push_back(p);
  m = share_allocation_error_of([&] { r->allocate(one); });
  EXPECT_NE(m.find("GPU-elsewhere, which this node does not share"), std::string::npos) << m;
  EXPECT_TRUE(pods.marked.empty());
  // Two shares of one GPU without an annotation would show one GPU to a container of two.
  pods.pods = {share_listed_pod("uid-g", 2)};
  const std::vector<std::string> same{"GPU-fake-0000::share-0", "GPU-fake-0000::share-1"};
  m = share_allocation_error_of([&] { r->allocate(same); });
  EXPECT_NE(m.find("GPU GPU-fake-0000 twice"), std::string::npos) << m;
}

TEST_F(InterposerShareResourceTest, EachContainerGetsAFreshRegionFolderNeverAnExistingOne) {
  pods.pods = {share_listed_pod("uid-h", 1), share_listed_pod("uid-h2", 1),
               share_listed_pod("uid-h3", 1)};
  pods.pods[1].uid = "uid-h";  // a second container's allocation of the same pod
  pods.pods[2].uid = "uid-h";
  auto r = make();
  const std::vector<std::string> one{"GPU-fake-0000::share-0"};
  const auto a = r->allocate(one);
  pods.marked.clear();
  // A folder someone else made with the next name: skipped, left as it was.
  std::filesystem::create_directories(dir_ / "regions" / "uid-h-1");
  write("regions/uid-h-1/theirs", "x");
  const auto b = r->allocate(one);
  const std::string fa = share_mount_at(a, "/var/run/slicelab")->host_path;
  const std::string fb = share_mount_at(b, "/var/run/slicelab")->host_path;
  EXPECT_EQ(std::filesystem::path(fa).filename().string(), "uid-h-0");
  EXPECT_EQ(std::filesystem::path(fb).filename().string(), "uid-h-2");
  EXPECT_EQ(share_file_text((dir_ / "regions" / "uid-h-1" / "theirs").string()), "x");
  // A root any user may write without the sticky bit is refused.
  pods.marked.clear();
  std::filesystem::permissions(dir_ / "regions", std::filesystem::perms::all);
  const std::string m = share_allocation_error_of([&] { r->allocate(one); });
  EXPECT_NE(m.find("writable by every user"), std::string::npos) << m;
}

TEST_F(InterposerShareResourceTest, WithoutThePreloadMountLdPreloadNamesTheLibrary) {
  config.interposer.preload_via_mount = false;
  pods.pods = {share_listed_pod("uid-i", 1)};
  auto r = make();
  const std::vector<std::string> one{"GPU-fake-0001::share-0"};
  const auto a = r->allocate(one);
  EXPECT_EQ(a.envs.at("LD_PRELOAD"), config.interposer.container_library);
  EXPECT_EQ(share_mount_at(a, "/etc/ld.so.preload"), nullptr);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "preload" / "ld.so.preload"));
  EXPECT_EQ(a.mounts.size(), 3u);  // the library, the region folder, the caps file
}

TEST_F(InterposerShareResourceTest, AnLdSoPreloadItDidNotWriteIsNeverReplaced) {
  std::filesystem::create_directories(dir_ / "preload");
  const std::string preload = (dir_ / "preload" / "ld.so.preload").string();
  { std::ofstream(preload) << "/usr/lib/libsomeone-elses.so\n"; }
  pods.pods = {share_listed_pod("uid-p", 1), share_listed_pod("uid-q", 1)};
  auto r = make();
  const std::vector<std::string> one{"GPU-fake-0001::share-0"};
  std::string why;
  try {
    r->allocate(one);
  } catch (const dp::AllocationError& e) {
    why = e.what();
  }
  EXPECT_NE(why.find("not replaced"), std::string::npos) << why;
  EXPECT_EQ(share_file_text(preload), "/usr/lib/libsomeone-elses.so\n");
  // One it wrote for another containerLibrary is its own: replaced.
  { std::ofstream(preload) << "/opt/old/libslicelab-interposer.so\n"; }
  r->allocate(one);
  EXPECT_EQ(share_file_text(preload), config.interposer.container_library + "\n");
}

TEST_F(InterposerShareResourceTest, AForeignFileUnderTheOldTemporaryNameIsKept) {
  // The name the plugin once wrote aside under (ld.so.preload.tmp-<pid>), taken by someone:
  // left as it is, and the preload file still written.
  std::filesystem::create_directories(dir_ / "preload");
  const std::string foreign =
      write("preload/ld.so.preload.tmp-" + std::to_string(::getpid()), "someone's\n");
  pods.pods = {share_listed_pod("uid-t", 1)};
  auto r = make();
  const std::vector<std::string> one{"GPU-fake-0000::share-0"};
  r->allocate(one);
  EXPECT_EQ(share_file_text(foreign), "someone's\n");
  EXPECT_EQ(share_file_text((dir_ / "preload" / "ld.so.preload").string()),
            config.interposer.container_library + "\n");
  // Nothing else of the plugin's is left in the folder.
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir_ / "preload"))
    names.insert(e.path().filename().string());
  EXPECT_EQ(names, (std::set<std::string>{"ld.so.preload",
                                          std::filesystem::path(foreign).filename().string()}));
}

TEST_F(InterposerShareResourceTest, ALinkedHostPreloadDirIsRefusedWithNothingWrittenThroughIt) {
  std::filesystem::create_directories(dir_ / "elsewhere");
  std::filesystem::create_directory_symlink(dir_ / "elsewhere", dir_ / "preload-link");
  config.interposer.host_preload_dir = (dir_ / "preload-link").string();
  pods.pods = {share_listed_pod("uid-l", 1), share_listed_pod("uid-m", 1)};
  auto r = make();
  const std::vector<std::string> one{"GPU-fake-0000::share-0"};
  std::string m = share_allocation_error_of([&] { r->allocate(one); });
  EXPECT_NE(m.find((dir_ / "preload-link").string() + " is a symbolic link"), std::string::npos)
      << m;
  EXPECT_NE(m.find("slicelab.interposer.hostPreloadDir"), std::string::npos) << m;
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "elsewhere"));
  EXPECT_TRUE(pods.marked.empty());
  // A link above the folder: refused the same way, nothing made beneath its target.
  std::filesystem::create_directories(dir_ / "up-real");
  std::filesystem::create_directory_symlink(dir_ / "up-real", dir_ / "up");
  config.interposer.host_preload_dir = (dir_ / "up" / "device-plugin").string();
  auto r2 = make();
  m = share_allocation_error_of([&] { r2->allocate(one); });
  EXPECT_NE(m.find((dir_ / "up").string() + " is a symbolic link"), std::string::npos) << m;
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "up-real"));
  // The region root likewise.
  config.interposer.host_preload_dir = (dir_ / "preload").string();
  config.interposer.host_region_root = (dir_ / "up" / "regions").string();
  auto r3 = make();
  m = share_allocation_error_of([&] { r3->allocate(one); });
  EXPECT_NE(m.find((dir_ / "up").string() + " is a symbolic link"), std::string::npos) << m;
  EXPECT_NE(m.find("slicelab.interposer.hostRegionRoot"), std::string::npos) << m;
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "up-real"));
}

TEST_F(InterposerShareResourceTest, PreferredTakesMustIncludeThenSpreadsOverTheLeastUsedGpus) {
  gpus.push_back(gpus[1]);
  gpus.back().index = 2;
  gpus.back().uuid = "GPU-fake-0002";
  auto r = make();
  dp::PreferredRequest q;
  // GPU 0 offers all 3 shares, GPU 1 one (two in use), GPU 2 two.
  q.available = {"GPU-fake-0001::share-2", "GPU-fake-0000::share-1", "GPU-fake-0000::share-0",
                 "GPU-fake-0002::share-1", "GPU-fake-0000::share-2", "GPU-fake-0002::share-0"};
  q.size = 3;
  EXPECT_EQ(r->preferred(q),
            (std::vector<std::string>{"GPU-fake-0000::share-0", "GPU-fake-0002::share-0",
                                      "GPU-fake-0001::share-2"}));
  q.must_include = {"GPU-fake-0002::share-1"};
  q.size = 2;
  EXPECT_EQ(r->preferred(q),
            (std::vector<std::string>{"GPU-fake-0002::share-1", "GPU-fake-0000::share-0"}));
  q.must_include.clear();
  q.size = 9;  // more than offered: all of them, still spread
  EXPECT_EQ(r->preferred(q).size(), 6u);
  // A must_include ID that is not offered (or not a share at all) is never handed back.
  q.must_include = {"GPU-fake-0001::share-0", "GPU-other::share-0"};
  q.size = 2;
  for (const std::string& id : r->preferred(q))
    EXPECT_NE(std::find(q.available.begin(), q.available.end(), id), q.available.end()) << id;
}

TEST_F(InterposerShareResourceTest, CdiDevicesCarryTheLibraryAndPreloadButNoRegionFolder) {
  config.list_strategies = {dp::DeviceListStrategy::kCdiCri};
  pods.pods = {share_listed_pod("uid-j", 1)};
  auto r = make();
  const auto cdi = r->cdi_devices();
  ASSERT_EQ(cdi.size(), 6u);
  EXPECT_EQ(cdi[4].name, "GPU-fake-0001::share-1");
  for (const auto& d : cdi) {
    ASSERT_EQ(d.edits.mounts.size(), 2u) << d.name;
    EXPECT_NE(share_mount_at(d.edits, config.interposer.container_library), nullptr);
    EXPECT_NE(share_mount_at(d.edits, "/etc/ld.so.preload"), nullptr);
    EXPECT_TRUE(d.edits.envs.empty());
  }
  // Describing the devices writes nothing: the preload file comes with the first Allocate.
  EXPECT_FALSE(std::filesystem::exists(dir_ / "preload"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "regions"));
  // With CDI, Allocate names the devices and keeps only the pod's own edits.
  const std::vector<std::string> one{"GPU-fake-0001::share-1"};
  const auto a = r->allocate(one);
  EXPECT_EQ(a.cdi_devices, (std::vector<std::string>{"slicelab.io/gpu=GPU-fake-0001::share-1"}));
  EXPECT_EQ(share_file_text((dir_ / "preload" / "ld.so.preload").string()),
            config.interposer.container_library + "\n");
  ASSERT_EQ(a.mounts.size(), 2u);
  EXPECT_EQ(a.mounts[0].container_path, "/var/run/slicelab");
  EXPECT_EQ(a.mounts[1].container_path, "/etc/slicelab/caps");  // per container, like the folder
  EXPECT_TRUE(a.mounts[1].read_only);
  EXPECT_EQ(a.envs.at("CUDA_VISIBLE_DEVICES"), "GPU-fake-0001");
}

// ---- the interposer's variables, shared with the local backend ----

TEST(InterposerEnvironmentTest, BothNamingsGlobalOrPerDevice) {
  slicelab::EnvMap env;
  slicelab::set_interposer_environment(env, slicelab::InterposerDeviceCaps{512, 25}, "/r");
  EXPECT_EQ(env, (slicelab::EnvMap{{"SLICELAB_MEMORY_LIMIT", "512m"},
                                   {"CUDA_DEVICE_MEMORY_LIMIT", "512m"},
                                   {"SLICELAB_SM_LIMIT", "25"},
                                   {"CUDA_DEVICE_SM_LIMIT", "25"},
                                   {"SLICELAB_SHARED_REGION", "/r"},
                                   {"CUDA_DEVICE_MEMORY_SHARED_CACHE", "/r"}}));
  env.clear();
  const std::vector<slicelab::InterposerDeviceCaps> same{{0, 40}, {100, 40}};
  slicelab::set_interposer_environment(env, same, "");
  EXPECT_EQ(env, (slicelab::EnvMap{{"SLICELAB_SM_LIMIT_0", "40"},
                                   {"SLICELAB_SM_LIMIT_1", "40"},
                                   {"CUDA_DEVICE_SM_LIMIT", "40"},
                                   {"SLICELAB_MEMORY_LIMIT_1", "100m"},
                                   {"CUDA_DEVICE_MEMORY_LIMIT_1", "100m"}}));
  env.clear();
  const std::vector<slicelab::InterposerDeviceCaps> mixed{{0, 40}, {0, 100}};
  slicelab::set_interposer_environment(env, mixed, "");
  EXPECT_EQ(env, (slicelab::EnvMap{{"SLICELAB_SM_LIMIT_0", "40"}}));
  // The local backend's pods get both namings too.
  slicelab::PodIsolation pod;
  pod.mechanism = slicelab::Mechanism::kInterposer;
  pod.devices = {"0"};
  pod.gpu_milli = 301;
  pod.gpu_memory_mib = 3000;
  pod.shared_region = "/tmp/x.region";
  env = slicelab::isolation_environment(pod);
  EXPECT_EQ(env.at("SLICELAB_SM_LIMIT"), "31");
  EXPECT_EQ(env.at("CUDA_DEVICE_SM_LIMIT"), "31");
  EXPECT_EQ(env.at("CUDA_DEVICE_MEMORY_LIMIT"), "3000m");
  EXPECT_EQ(env.at("CUDA_DEVICE_MEMORY_SHARED_CACHE"), "/tmp/x.region");
}

// ---- the pod source over the Kubernetes API ----

json share_pod(const std::string& name, const std::string& node, int gpus,
               const json& extra_limits = json::object()) {
  json limits = extra_limits;
  limits["nvidia.com/gpu"] = std::to_string(gpus);
  return {{"metadata", {{"name", name}, {"namespace", "team"}}},
          {"spec",
           {{"nodeName", node},
            {"containers",
             json::array(
                 {{{"name", "main"}, {"image", "cuda"}, {"resources", {{"limits", limits}}}}})}}}};
}

std::string share_assignment_text(int index, const std::string& uuid, int64_t mib, int cores) {
  return slicelab::k8s::to_annotation(
      GpuAssignment{"n1", "fgd", "hami", {AssignedGpu{index, uuid, mib, cores}}});
}

slicelab::k8s::ApiConfig share_api_config(const slicelab::testing::FakeApiServer& server) {
  slicelab::k8s::ApiConfig c;
  c.server = server.url();
  return c;
}

void share_set_created(slicelab::testing::FakeApiServer& server, const std::string& name,
                       const std::string& time) {
  ASSERT_TRUE(server.modify_pod("team", name, {{"metadata", {{"creationTimestamp", time}}}}));
}

TEST(ApiPodSourceTest, OldestBoundPodFirstThenTheNextOnceMarked) {
  slicelab::testing::FakeApiServer server;
  json a = share_pod("a", "n1", 1);
  a["metadata"]["annotations"][std::string(slicelab::k8s::kGpuAssignmentAnnotation)] =
      share_assignment_text(0, "GPU-fake-0000", 1000, 10);
  json b = a;
  b["metadata"]["name"] = "b";
  b["metadata"]["annotations"][std::string(slicelab::k8s::kGpuAssignmentAnnotation)] =
      share_assignment_text(1, "GPU-fake-0001", 2000, 20);
  server.add_pod(a);
  server.add_pod(b);
  share_set_created(server, "a", "2026-01-01T00:00:05Z");
  share_set_created(server, "b", "2026-01-01T00:00:01Z");
  // Not candidates: another node's, a running one, one asking for two, one marked already.
  server.add_pod(share_pod("other-node", "n2", 1));
  json running = share_pod("running", "n1", 1);
  running["status"]["phase"] = "Running";
  server.add_pod(running);
  server.add_pod(share_pod("two", "n1", 2));
  json done = share_pod("done", "n1", 1);
  done["metadata"]["annotations"][std::string(dp::kGpuAllocatedAnnotation)] = "true";
  server.add_pod(done);
  json leaving = share_pod("leaving", "n1", 1);
  leaving["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:09Z";
  server.add_pod(leaving);
  // Without an annotation: after the annotated ones although older.
  server.add_pod(
      share_pod("plain", "n1", 1, {{"nvidia.com/gpumem", "3000"}, {"nvidia.com/gpucores", "30"}}));
  share_set_created(server, "plain", "2025-12-31T00:00:00Z");

  slicelab::k8s::ApiClient client(share_api_config(server));
  auto source = dp::make_api_pod_source(client, "n1");
  auto p = source->pending_pod("nvidia.com/gpu", 1);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->name, "b");
  EXPECT_EQ(p->namespace_name, "team");
  EXPECT_EQ(p->uid, server.pod("team", "b")["metadata"]["uid"]);
  ASSERT_TRUE(p->assignment);
  EXPECT_EQ(p->assignment->gpus.at(0).uuid, "GPU-fake-0001");
  EXPECT_EQ(p->assignment->gpus.at(0).memory_mib, 2000);
  // Asking again without marking gives the same pod.
  EXPECT_EQ(source->pending_pod("nvidia.com/gpu", 1)->name, "b");
  source->mark_allocated(*p);
  EXPECT_EQ(
      server.pod("team", "b")["metadata"]["annotations"][std::string(dp::kGpuAllocatedAnnotation)],
      "true");
  p = source->pending_pod("nvidia.com/gpu", 1);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->name, "a");
  source->mark_allocated(*p);
  p = source->pending_pod("nvidia.com/gpu", 1);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->name, "plain");
  EXPECT_FALSE(p->assignment);
  EXPECT_EQ(p->memory_mib, 3000);
  EXPECT_EQ(p->cores, 30);
  EXPECT_EQ(p->gpus, 1);
  source->mark_allocated(*p);
  EXPECT_FALSE(source->pending_pod("nvidia.com/gpu", 1));
  p = source->pending_pod("nvidia.com/gpu", 2);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->name, "two");
  // Every LIST asked the server for this node's pending pods, in bounded pages.
  bool listed = false;
  for (const auto& r : server.requests()) {
    if (r.method != "GET" || r.path != "/api/v1/pods") continue;
    listed = true;
    EXPECT_NE(r.query.find("fieldSelector=spec.nodeName=n1,status.phase=Pending"),
              std::string::npos)
        << r.query;
    EXPECT_NE(r.query.find("limit=" + std::to_string(dp::kPodPageSize)), std::string::npos)
        << r.query;
  }
  EXPECT_TRUE(listed);
}

TEST(ApiPodSourceTest, HamiBindTimeOrdersAndItsPhaseIsHonoured) {
  slicelab::testing::FakeApiServer server;
  json x = share_pod("x", "n1", 1, {{"nvidia.com/gpumem-percentage", "25"}});
  x["metadata"]["annotations"] = {{"hami.io/bind-time", "1767225700"},
                                  {"hami.io/bind-phase", "allocating"}};
  json y = share_pod("y", "n1", 1);
  y["metadata"]["annotations"] = {{"hami.io/bind-time", "1767225600"},
                                  {"hami.io/bind-phase", "success"}};
  json z = share_pod("z", "n1", 1);
  z["metadata"]["annotations"] = {{"hami.io/bind-time", "1767225800"}};
  server.add_pod(x);
  server.add_pod(y);
  server.add_pod(z);
  slicelab::k8s::ApiClient client(share_api_config(server));
  auto source = dp::make_api_pod_source(client, "n1");
  auto p = source->pending_pod("nvidia.com/gpu", 1);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->name, "x");  // y is allocated already (success), z was bound later
  EXPECT_EQ(p->memory_percent, 25);
  source->mark_allocated(*p);
  EXPECT_EQ(server.pod("team", "x")["metadata"]["annotations"]["hami.io/bind-phase"], "success");
  p = source->pending_pod("nvidia.com/gpu", 1);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->name, "z");
  source->mark_allocated(*p);
  EXPECT_FALSE(server.pod("team", "z")["metadata"]["annotations"].contains("hami.io/bind-phase"));
}

TEST(ApiPodSourceTest, ContainersAreAllocatedOneAfterAnotherInTheKubeletsOrder) {
  slicelab::testing::FakeApiServer server;
  json pod = share_pod("multi", "n1", 1, {{"nvidia.com/gpumem", "1000"}});
  json second = pod["spec"]["containers"][0];
  second["name"] = "second";
  second["resources"]["limits"] = {{"nvidia.com/gpu", "2"}, {"nvidia.com/gpumem", "2000"}};
  json init = pod["spec"]["containers"][0];
  init["name"] = "init";
  init["resources"]["limits"]["nvidia.com/gpumem"] = "500";
  json cpu_only = {{"name", "sidecar"}, {"image", "busybox"}};
  pod["spec"]["containers"].push_back(cpu_only);
  pod["spec"]["containers"].push_back(second);
  pod["spec"]["initContainers"] = json::array({init});
  // The extender's annotation is per pod: with several GPU containers it is not used.
  pod["metadata"]["annotations"] = {
      {std::string(slicelab::k8s::kGpuAssignmentAnnotation), share_assignment_text(0, "", 64, 10)},
      {"hami.io/bind-phase", "allocating"}};
  server.add_pod(pod);
  slicelab::k8s::ApiClient client(share_api_config(server));
  auto source = dp::make_api_pod_source(client, "n1");
  EXPECT_FALSE(source->pending_pod("nvidia.com/gpu", 2));  // the init container comes first
  auto p = source->pending_pod("nvidia.com/gpu", 1);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->memory_mib, 500);
  EXPECT_FALSE(p->assignment);
  source->mark_allocated(*p);
  auto annotations = [&] { return server.pod("team", "multi")["metadata"]["annotations"]; };
  EXPECT_EQ(annotations()[std::string(dp::kGpuAllocatedAnnotation)], "1");
  EXPECT_EQ(annotations()["hami.io/bind-phase"], "allocating");
  p = source->pending_pod("nvidia.com/gpu", 1);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->memory_mib, 1000);
  source->mark_allocated(*p);
  EXPECT_FALSE(source->pending_pod("nvidia.com/gpu", 1));
  p = source->pending_pod("nvidia.com/gpu", 2);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->memory_mib, 2000);
  source->mark_allocated(*p);
  EXPECT_EQ(annotations()[std::string(dp::kGpuAllocatedAnnotation)], "true");
  EXPECT_EQ(annotations()["hami.io/bind-phase"], "success");
  EXPECT_FALSE(source->pending_pod("nvidia.com/gpu", 2));
  EXPECT_FALSE(source->pending_pod("nvidia.com/gpu", 1));
}

TEST(ApiPodSourceTest, ReadsEveryPageAndSkipsMalformedPods) {
  slicelab::testing::FakeApiServer server;
  // The fake ignores field selectors: 300 other nodes' pods come first in its order.
  for (int i = 0; i < 300; ++i) server.add_pod(share_pod("a" + std::to_string(1000 + i), "n9", 1));
  json broken = share_pod("b-broken", "n1", 1);
  broken["spec"]["containers"] = "not a list";
  server.add_pod(broken);
  json odd = share_pod("b-odd", "n1", 1);
  odd["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "1.5";
  server.add_pod(odd);
  json annotated = share_pod("c-last", "n1", 1);
  annotated["metadata"]["annotations"][std::string(slicelab::k8s::kGpuAssignmentAnnotation)] =
      "{not json";
  server.add_pod(annotated);
  slicelab::k8s::ApiClient client(share_api_config(server));
  auto source = dp::make_api_pod_source(client, "n1");
  const auto p = source->pending_pod("nvidia.com/gpu", 1);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->name, "c-last");
  EXPECT_FALSE(p->assignment);  // unreadable: the requests give the caps
  EXPECT_EQ(server.count("GET", "/api/v1/pods"), 2u);
}

// ---- the client run with exactly what Allocate returned ----

#if SHARE_TEST_CAN_RUN_CLIENT

// The allocation applied as a container runtime would (tests/support/container_runner), with
// the fake driver's folder on the library path, run as the interposer harness reports runs.
class ShareContainer {
 public:
  explicit ShareContainer(const dp::ContainerAllocation& a) : allocation_(a) {}

  // LD_PRELOAD is listed even when nothing is preloaded ("" for the loader is the same as
  // unset), so that a test can say so.
  slicelab::testing::ContainerEnv environment() const {
    slicelab::testing::ContainerEnv env =
        slicelab::testing::container_environment(allocation_, options({}));
    env.try_emplace("LD_PRELOAD", "");
    return env;
  }

  slicelab::test::Result run(const std::vector<std::string>& args,
                             const slicelab::test::Env& knobs = {}) const {
    std::vector<std::string> argv{SLICELAB_CLIENT};
    argv.insert(argv.end(), args.begin(), args.end());
    const slicelab::testing::ContainerResult r =
        slicelab::testing::run_in_container(allocation_, argv, options(knobs));
    return {r.exit_code, r.timed_out, r.output};
  }

 private:
  static slicelab::testing::ContainerOptions options(const slicelab::test::Env& knobs) {
    slicelab::testing::ContainerOptions o;
    o.fakes_dir = SLICELAB_FAKES;
    o.node_env = knobs;
    return o;
  }

  const dp::ContainerAllocation& allocation_;
};

class ShareContainerRunTest : public InterposerShareResourceTest {
 protected:
  void SetUp() override {
    InterposerShareResourceTest::SetUp();
    // The host's library is the interposer just built; the container sees it elsewhere.
    config.interposer.host_library = SLICELAB_INTERPOSER;
  }
};

TEST_F(ShareContainerRunTest, TheReturnedEnvironmentAndMountsHoldTheMemoryCap) {
  // The pod comes from the API server with the extender's annotation: 64 MiB on GPU 1.
  slicelab::testing::FakeApiServer server;
  json pod = share_pod("capped", "n1", 1);
  pod["metadata"]["annotations"][std::string(slicelab::k8s::kGpuAssignmentAnnotation)] =
      share_assignment_text(1, "GPU-fake-0001", 64, 100);
  server.add_pod(pod);
  slicelab::k8s::ApiClient client(share_api_config(server));
  auto source = dp::make_api_pod_source(client, "n1");
  auto r = dp::make_interposer_share_resource(config, gpus, health, *source);
  const std::vector<std::string> ids{"GPU-fake-0000::share-0"};
  const dp::ContainerAllocation a = r->allocate(ids);
  const ShareContainer container(a);
  EXPECT_EQ(container.environment().at("LD_PRELOAD"), std::string(SLICELAB_INTERPOSER));
  const std::string k64m = std::to_string(64u << 20);
  slicelab::test::Result over = container.run({"try", std::to_string((64u << 20) + 1)});
  EXPECT_NE(over.out.find("result=2 "), std::string::npos) << over.out;
  slicelab::test::Result under = container.run({"try", k64m});
  EXPECT_NE(under.out.find("result=0 used=" + k64m), std::string::npos) << under.out;
  // The container's region was made in its own folder, which Allocate made.
  const std::string folder = share_mount_at(a, "/var/run/slicelab")->host_path;
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(folder) / "region.cache"));
  EXPECT_EQ(
      server.pod("team",
                 "capped")["metadata"]["annotations"][std::string(dp::kGpuAllocatedAnnotation)],
      "true");
}

TEST_F(ShareContainerRunTest, TheReturnedEnvironmentAndMountsHoldTheComputeCap) {
  dp::PendingPod p = share_listed_pod("uid-run", 1);
  p.cores = 30;  // no annotation: the pod's nvidia.com/gpucores
  pods.pods.push_back(p);
  auto r = make();
  const std::vector<std::string> ids{"GPU-fake-0001::share-0"};
  const dp::ContainerAllocation a = r->allocate(ids);
  const ShareContainer container(a);
  // On virtual time, as the interposer's own share tests run, so the figure does not depend
  // on how busy the machine is.
  const slicelab::test::Result res = container.run(
      {"share", "20000"}, {{"SLICELAB_FAKE_VIRTUAL_TIME", "1"}, {"SLICELAB_TEST_FAKE_CLOCK", "1"}});
  ASSERT_EQ(res.exit_code, 0) << res.out;
  const size_t at = res.out.find("share=");
  ASSERT_NE(at, std::string::npos) << res.out;
  const double share = std::strtod(res.out.c_str() + at + 6, nullptr);
  EXPECT_NEAR(share, 0.30, 0.05) << res.out;
}

TEST_F(ShareContainerRunTest, TheMountedCapsFileHoldsWhateverTheContainersProcessesDo) {
  dp::PendingPod p = share_listed_pod("uid-caps", 1);
  p.memory_mib = 64;
  pods.pods.push_back(p);
  auto r = make();
  const std::vector<std::string> ids{"GPU-fake-0001::share-0"};
  dp::ContainerAllocation a = r->allocate(ids);
  const std::string caps = share_mount_at(a, "/etc/slicelab/caps")->host_path;
  const std::string over = std::to_string((64u << 20) + 1);
  const std::string loader = "LD_PRELOAD,LD_LIBRARY_PATH,ASAN_OPTIONS,TSAN_OPTIONS";
  {
    const ShareContainer container(a);
    // The file as the container sees it: its region path resolved through the folder's mount.
    const std::string seen = container.environment().at("SLICELAB_CAPS_FILE");
    EXPECT_EQ(seen, caps + ".seen-from-host");
    EXPECT_NE(share_file_text(seen).find(
                  "SLICELAB_SHARED_REGION=" + share_mount_at(a, "/var/run/slicelab")->host_path +
                  "/region.cache\n"),
              std::string::npos)
        << share_file_text(seen);
    // unsetenv of every interposer variable before the first CUDA call, then a cap of its own.
    slicelab::test::Result res = container.run({"unset_try", over});
    EXPECT_NE(res.out.find("result=2 "), std::string::npos) << res.out;
    // A child with an empty environment but for the file system (preload, driver, caps mount).
    res = container.run({"env_i", loader + ",SLICELAB_CAPS_FILE", "try", over});
    EXPECT_NE(res.out.find("result=2 "), std::string::npos) << res.out;
    res =
        container.run({"env_i", loader + ",SLICELAB_CAPS_FILE", "try", std::to_string(64u << 20)});
    EXPECT_NE(res.out.find("result=0 "), std::string::npos) << res.out;
  }
  // The check can fail: without the caps mount, the environment is all there is, and a child
  // started without it has no cap.
  std::erase_if(a.mounts,
                [](const dp::Mount& m) { return m.container_path == "/etc/slicelab/caps"; });
  const ShareContainer bare(a);
  EXPECT_EQ(bare.environment().count("SLICELAB_CAPS_FILE"), 0u);
  slicelab::test::Result res = bare.run({"try", over});
  EXPECT_NE(res.out.find("result=2 "), std::string::npos) << res.out;  // the fallback holds
  res = bare.run({"env_i", loader, "try", over});
  EXPECT_NE(res.out.find("result=0 "), std::string::npos) << res.out;
}

TEST_F(ShareContainerRunTest, WithoutTheInterposerTheSameRunIsNotCapped) {
  // The check above can fail: the same allocation with its preload mount removed runs free.
  dp::PendingPod p = share_listed_pod("uid-free", 1);
  p.memory_mib = 64;
  pods.pods.push_back(p);
  auto r = make();
  const std::vector<std::string> ids{"GPU-fake-0001::share-0"};
  dp::ContainerAllocation a = r->allocate(ids);
  std::erase_if(a.mounts,
                [](const dp::Mount& m) { return m.container_path == "/etc/ld.so.preload"; });
  const ShareContainer container(a);
  EXPECT_EQ(container.environment().at("LD_PRELOAD"), "");
  const slicelab::test::Result over = container.run({"try", std::to_string((64u << 20) + 1)});
  EXPECT_NE(over.out.find("result=0 "), std::string::npos) << over.out;
}

#else

TEST(ShareContainerRunTest, NeedsTheFakeDriver) {
  GTEST_SKIP() << "built without CUDA headers: no fake driver, interposer or client to run";
}

#endif

}  // namespace
