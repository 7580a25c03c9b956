// The device plugin's gRPC server through a fake kubelet: registration, ListAndWatch health
// updates, GetPreferredAllocation and Allocate field by field, refusals and hostile requests.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>

#include "backends/device_plugin/plugin_server.h"
#include "tests/device_plugin/stub_gpu_plugin.h"

namespace slicelab::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

bool is_unix_socket(const std::filesystem::path& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

std::string health_of(const std::vector<v1beta1::Device>& list, const std::string& id) {
  for (const auto& d : list) {
    if (d.id() == id) return d.health();
  }
  return "absent";
}

using DevicePluginServerTest = DevicePluginGrpcFixture;

TEST_F(DevicePluginServerTest, RegistersWithVersionEndpointResourceAndOptions) {
  StubGpuPlugin shared(health_, {"GPU-a::0", "GPU-a::1"}, "nvidia.com/gpu.shared", true);
  kubelet_ = std::make_unique<FakeKubelet>(dir_);
  start_runner({&plugin_, &shared});
  ASSERT_TRUE(kubelet_->wait_for_registrations(2, seconds(5)));
  auto registrations = kubelet_->registrations();
  ASSERT_EQ(registrations.size(), 2u);
  std::sort(registrations.begin(), registrations.end(),
            [](const auto& a, const auto& b) { return a.resource_name() < b.resource_name(); });
  EXPECT_EQ(registrations[0].version(), "v1beta1");
  EXPECT_EQ(registrations[0].resource_name(), "nvidia.com/gpu");
  EXPECT_EQ(registrations[0].endpoint(), "slicelab-nvidia.com-gpu.sock");
  EXPECT_TRUE(registrations[0].options().get_preferred_allocation_available());
  EXPECT_FALSE(registrations[0].options().pre_start_required());
  EXPECT_EQ(registrations[1].resource_name(), "nvidia.com/gpu.shared");
  EXPECT_EQ(registrations[1].endpoint(), "slicelab-nvidia.com-gpu.shared.sock");
  EXPECT_TRUE(registrations[1].options().pre_start_required());
  EXPECT_TRUE(is_unix_socket(dir_ / "slicelab-nvidia.com-gpu.sock"));
  EXPECT_TRUE(is_unix_socket(dir_ / "slicelab-nvidia.com-gpu.shared.sock"));
  EXPECT_TRUE(eventually([&] { return runner_->registrations() == 2; }, seconds(1)));

  // GetDevicePluginOptions says what the registration said.
  const auto options = kubelet_->client("nvidia.com/gpu.shared")->options();
  ASSERT_TRUE(options.ok()) << options.status.error_message();
  EXPECT_TRUE(options.response.pre_start_required());
  EXPECT_TRUE(options.response.get_preferred_allocation_available());
  // PreStartContainer reaches a plugin that asked for it.
  EXPECT_TRUE(kubelet_->client("nvidia.com/gpu.shared")->pre_start({"GPU-a::1"}).ok());
  EXPECT_EQ(shared.pre_started.load(), 1);
}

TEST_F(DevicePluginServerTest, ListAndWatchSendsTheListThenEachHealthChange) {
  const auto client = start_and_connect();
  ASSERT_NE(client, nullptr);
  const auto first = client->next_device_list(seconds(5));
  ASSERT_TRUE(first.has_value());
  ASSERT_EQ(first->size(), 4u);
  EXPECT_EQ((*first)[0].id(), "GPU-a");
  EXPECT_FALSE((*first)[0].has_topology());  // NUMA node unknown: no hint
  ASSERT_EQ((*first)[1].topology().nodes_size(), 1);
  EXPECT_EQ((*first)[1].topology().nodes(0).id(), 1);
  EXPECT_EQ((*first)[2].topology().nodes(0).id(), 0);
  for (const auto& d : *first) EXPECT_EQ(d.health(), "Healthy");

  health_.mark_unhealthy("GPU-b", "XID 79");
  const auto second = client->next_device_list(seconds(5));
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(health_of(*second, "GPU-b"), "Unhealthy");
  EXPECT_EQ(health_of(*second, "GPU-a"), "Healthy");
  EXPECT_EQ(health_of(*second, "GPU-c"), "Healthy");

  // A GPU this resource does not serve changes nothing it advertises: no message.
  health_.mark_unhealthy("GPU-elsewhere", "lost");
  EXPECT_FALSE(client->next_device_list(milliseconds(200)).has_value());

  health_.mark_healthy("GPU-b");
  const auto third = client->next_device_list(seconds(5));
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(health_of(*third, "GPU-b"), "Healthy");
  EXPECT_FALSE(client->wait_for_stream_end(milliseconds(0)).has_value());
}

TEST_F(DevicePluginServerTest, PreferredAndAllocateCarryEveryField) {
  const auto client = start_and_connect();
  ASSERT_NE(client, nullptr);
  const auto preferred = client->preferred({"GPU-a", "GPU-b", "GPU-c", "GPU-d"}, {"GPU-c"}, 2);
  ASSERT_TRUE(preferred.ok()) << preferred.status.error_message();
  ASSERT_EQ(preferred.response.container_responses_size(), 1);
  const auto& ids = preferred.response.container_responses(0).deviceids();
  ASSERT_EQ(ids.size(), 2);
  EXPECT_EQ(ids[0], "GPU-c");
  EXPECT_EQ(ids[1], "GPU-a");

  const auto allocated = client->allocate({{"GPU-a", "GPU-b"}, {"GPU-d"}});
  ASSERT_TRUE(allocated.ok()) << allocated.status.error_message();
  ASSERT_EQ(allocated.response.container_responses_size(), 2);
  const auto& two = allocated.response.container_responses(0);
  EXPECT_EQ(two.envs().at("NVIDIA_VISIBLE_DEVICES"), "GPU-a,GPU-b");
  EXPECT_EQ(two.envs().at("SLICELAB_DEVICE_COUNT"), "2");
  EXPECT_EQ(two.envs_size(), 2);
  ASSERT_EQ(two.mounts_size(), 2);
  EXPECT_EQ(two.mounts(0).container_path(), "/usr/lib/libslicelab-interposer.so");
  EXPECT_EQ(two.mounts(0).host_path(), "/opt/slicelab/interposer.so");
  EXPECT_TRUE(two.mounts(0).read_only());
  EXPECT_EQ(two.mounts(1).host_path(), "/run/slicelab/GPU-a");
  EXPECT_FALSE(two.mounts(1).read_only());
  ASSERT_EQ(two.devices_size(), 3);
  EXPECT_EQ(two.devices(1).container_path(), "/dev/nvidia1");
  EXPECT_EQ(two.devices(1).host_path(), "/dev/nvidia1");
  EXPECT_EQ(two.devices(1).permissions(), "rw");
  EXPECT_EQ(two.devices(2).container_path(), "/dev/nvidiactl");
  EXPECT_EQ(two.devices(2).permissions(), "r");
  EXPECT_EQ(two.annotations().at("slicelab.io/allocated"), "GPU-a,GPU-b");
  ASSERT_EQ(two.cdi_devices_size(), 2);
  EXPECT_EQ(two.cdi_devices(0).name(), "slicelab.io/gpu=GPU-a");
  EXPECT_EQ(two.cdi_devices(1).name(), "slicelab.io/gpu=GPU-b");
  const auto& one = allocated.response.container_responses(1);
  EXPECT_EQ(one.envs().at("NVIDIA_VISIBLE_DEVICES"), "GPU-d");
  EXPECT_EQ(one.devices(0).container_path(), "/dev/nvidia3");
  EXPECT_EQ(plugin_.allocate_calls.load(), 2);
  // The plugin did not ask for PreStartContainer: a call is a no-op.
  EXPECT_TRUE(client->pre_start({"GPU-a"}).ok());
  EXPECT_EQ(plugin_.pre_started.load(), 0);
}

TEST_F(DevicePluginServerTest, RefusalsAndOversizedRequestsAreInvalidArgument) {
  const auto client = start_and_connect();
  ASSERT_NE(client, nullptr);
  const auto unknown = client->allocate({{"GPU-a", "GPU-zzz"}});
  EXPECT_EQ(unknown.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(unknown.status.error_message(),
            "Allocate: container request 1 asks for unknown device 'GPU-zzz'; the plugin "
            "advertises no such device");
  const int calls_before_limits = plugin_.allocate_calls.load();
  EXPECT_EQ(calls_before_limits, 0);

  // 4097 IDs over two containers: over the per-request limit, the plugin never sees them.
  std::vector<std::string> many(2049, "GPU-a");
  const auto too_many = client->allocate({many, std::vector<std::string>(2048, "GPU-b")});
  EXPECT_EQ(too_many.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(too_many.status.error_message().find("4096"), std::string::npos);
  const auto huge_id = client->allocate({{std::string(257, 'G')}});
  EXPECT_EQ(huge_id.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(huge_id.status.error_message().find("256 bytes"), std::string::npos);
  const auto containers = client->allocate(std::vector<std::vector<std::string>>(1025, {"GPU-a"}));
  EXPECT_EQ(containers.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(plugin_.allocate_calls.load(), calls_before_limits);

  EXPECT_EQ(client->preferred({"GPU-a"}, {}, 2).status.error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(client->preferred({"GPU-a"}, {}, -1).status.error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(client->preferred({std::string(300, 'x')}, {}, 1).status.error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(client->pre_start(std::vector<std::string>(4097, "GPU-a")).status.error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  // Right at the limits the request is read (and its unknown ID refused, shown shortened).
  const auto at_limit = client->allocate({{std::string(256, 'G')}});
  EXPECT_EQ(at_limit.status.error_message(),
            "Allocate: container request 1 asks for unknown device '" + std::string(80, 'G') +
                "... (256 bytes)'; the plugin advertises no such device");
  EXPECT_EQ(plugin_.allocate_calls.load(), calls_before_limits);
}

TEST_F(DevicePluginServerTest, AllocateRefusesWhatTheKubeletNeverSends) {
  const auto client = start_and_connect();
  ASSERT_NE(client, nullptr);
  health_.mark_unhealthy("GPU-d", "XID 79");
  const auto refused = [&](const std::vector<std::vector<std::string>>& containers) {
    const auto r = client->allocate(containers);
    EXPECT_EQ(r.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    return r.status.error_message();
  };
  EXPECT_EQ(refused({{}}),
            "Allocate: container request 1 asks for no device; the kubelet asks for at least one");
  EXPECT_EQ(refused({}), "Allocate: no container request; the kubelet sends one");
  EXPECT_EQ(refused({{"GPU-a", "GPU-b", "GPU-a"}}),
            "Allocate: container request 1 asks for device 'GPU-a' twice; the kubelet asks for "
            "each device once");
  EXPECT_EQ(refused({{"GPU-a"}, {"GPU-b", "GPU-a"}}),
            "Allocate: device 'GPU-a' is asked for by container requests 1 and 2; a device goes "
            "to one container");
  EXPECT_EQ(refused({{"GPU-a"}, {"GPU-d"}}),
            "Allocate: container request 2 asks for device 'GPU-d', which is unhealthy; the "
            "kubelet allocates only healthy devices");
  EXPECT_EQ(refused({{std::string("GPU-\x01\n", 6)}}),
            "Allocate: container request 1 asks for unknown device 'GPU-\\x01\\x0a'; the plugin "
            "advertises no such device");
  // None of them reached the plugin; a request as the kubelet sends it does.
  EXPECT_EQ(plugin_.allocate_calls.load(), 0);
  EXPECT_TRUE(client->allocate({{"GPU-a", "GPU-b"}}).ok());
  health_.mark_healthy("GPU-d");
  EXPECT_TRUE(client->allocate({{"GPU-d"}}).ok());
  EXPECT_EQ(plugin_.allocate_calls.load(), 2);
}

TEST_F(DevicePluginServerTest, PreferredRefusesWhatTheKubeletNeverSendsAndAnswersOnlyAvailable) {
  const auto client = start_and_connect();
  ASSERT_NE(client, nullptr);
  const auto refused = [&](const std::vector<std::string>& available,
                           const std::vector<std::string>& must_include, int size) {
    const auto r = client->preferred(available, must_include, size);
    EXPECT_EQ(r.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    return r.status.error_message();
  };
  EXPECT_EQ(refused({"GPU-a", "GPU-b"}, {"GPU-c"}, 2),
            "GetPreferredAllocation: must_include_deviceIDs holds 'GPU-c', which is not among "
            "available_deviceIDs; the kubelet offers what it must include");
  EXPECT_EQ(refused({"GPU-a", "GPU-b", "GPU-a"}, {}, 1),
            "GetPreferredAllocation: available_deviceIDs holds 'GPU-a' twice; the kubelet offers "
            "a set");
  EXPECT_EQ(refused({"GPU-a", "GPU-x"}, {}, 1),
            "GetPreferredAllocation: available_deviceIDs holds unknown device 'GPU-x'; the "
            "plugin advertises no such device");
  EXPECT_EQ(refused({"GPU-a", "GPU-b"}, {"GPU-a", "GPU-a"}, 2),
            "GetPreferredAllocation: must_include_deviceIDs holds 'GPU-a' twice; the kubelet "
            "sends a set");
  for (const int size : {0, -1, 3}) {
    EXPECT_EQ(refused({"GPU-a", "GPU-b"}, {}, size),
              "GetPreferredAllocation: allocation_size " + std::to_string(size) +
                  " is not within 1..2 (at least 1 and the 0 device(s) it must include, at most "
                  "the 2 available)");
  }
  EXPECT_NE(refused({"GPU-a", "GPU-b", "GPU-c"}, {"GPU-a", "GPU-b"}, 1).find("within 2..3"),
            std::string::npos);

  // A plugin that answers with IDs it was not offered, twice, or too many: the kubelet gets
  // must_include first, then only available IDs, each once, at most allocation_size.
  plugin_.preferred_answer = {"GPU-d", "GPU-b", "GPU-b", "GPU-zzz", "GPU-a", "GPU-c"};
  const auto answer = client->preferred({"GPU-a", "GPU-b", "GPU-c"}, {"GPU-c"}, 2);
  ASSERT_TRUE(answer.ok()) << answer.status.error_message();
  const auto& ids = answer.response.container_responses(0).deviceids();
  EXPECT_EQ(std::vector<std::string>(ids.begin(), ids.end()),
            (std::vector<std::string>{"GPU-c", "GPU-b"}));
}

TEST_F(DevicePluginServerTest, SeventyOpenStreamsLeaveAllocateAndPreferredAnswered) {
  const auto kubelet_client = start_and_connect();
  ASSERT_NE(kubelet_client, nullptr);
  ASSERT_TRUE(kubelet_client->next_device_list(seconds(5)).has_value());
  // 70 more clients, each holding a stream open (each on its own connection), one after the
  // other: the first ones get the list, the rest are refused at once.
  std::vector<std::unique_ptr<FakePluginClient>> watchers;
  int listed = 0;
  int refused = 0;
  for (int i = 0; i < 70; ++i) {
    auto& w = watchers.emplace_back(
        std::make_unique<FakePluginClient>(dir_ / "slicelab-nvidia.com-gpu.sock", true));
    if (w->next_device_list(seconds(10)).has_value()) {
      ++listed;
      continue;
    }
    const auto end = w->wait_for_stream_end(seconds(1));
    ASSERT_TRUE(end.has_value());
    EXPECT_EQ(end->error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << end->error_message();
    ++refused;
  }
  // The kubelet's stream holds one place; the rest up to the limit are served.
  EXPECT_EQ(listed, device_plugin::kMaxListAndWatchStreams - 1);
  EXPECT_EQ(refused, 70 - listed);
  // The streams still open leave threads for the calls.
  const auto allocated = kubelet_client->allocate({{"GPU-a"}});
  EXPECT_TRUE(allocated.ok()) << allocated.status.error_message();
  const auto preferred = kubelet_client->preferred({"GPU-a", "GPU-b"}, {}, 1);
  EXPECT_TRUE(preferred.ok()) << preferred.status.error_message();
  // The kubelet's own stream still hears of a change; a place freed is taken again.
  health_.mark_unhealthy("GPU-b", "XID 79");
  EXPECT_TRUE(kubelet_client->next_device_list(seconds(5)).has_value());
  // (The server notices a cancelled stream within its poll interval: retried until then.)
  watchers.clear();
  EXPECT_TRUE(eventually(
      [&] {
        FakePluginClient again(dir_ / "slicelab-nvidia.com-gpu.sock", true);
        return again.next_device_list(seconds(2)).has_value();
      },
      seconds(5)));
}

TEST_F(DevicePluginServerTest, ALinkedPluginFolderIsRefusedWithNothingBoundThroughIt) {
  const auto real = dir_ / "real";
  std::filesystem::create_directories(real);
  std::filesystem::create_directory_symlink(real, dir_ / "link");
  device_plugin::DevicePluginServer server(plugin_, health_, dir_ / "link");
  try {
    server.start();
    ADD_FAILURE() << "a linked plugin folder was served";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((dir_ / "link").string() + " is a symbolic link"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(server.serving());
  EXPECT_TRUE(std::filesystem::is_empty(real));
}

TEST_F(DevicePluginServerTest, GarbagePayloadsGetErrorsAndTheServerGoesOn) {
  const auto client = start_and_connect();
  ASSERT_NE(client, nullptr);
  // Field 1 (length-delimited) announcing 100 bytes of which 3 follow.
  const grpc::Status truncated =
      client->call_raw("/v1beta1.DevicePlugin/Allocate", std::string("\x0a\x64"
                                                                     "abc",
                                                                     5));
  EXPECT_FALSE(truncated.ok());
  // A varint that never ends.
  const grpc::Status endless =
      client->call_raw("/v1beta1.DevicePlugin/Allocate", std::string(64, '\xff'));
  EXPECT_FALSE(endless.ok());
  const grpc::Status unknown_method = client->call_raw("/v1beta1.DevicePlugin/Nope", "");
  EXPECT_EQ(unknown_method.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(plugin_.allocate_calls.load(), 0);

  const auto after = client->allocate({{"GPU-c"}});
  ASSERT_TRUE(after.ok()) << after.status.error_message();
  EXPECT_EQ(after.response.container_responses(0).envs().at("NVIDIA_VISIBLE_DEVICES"), "GPU-c");
  EXPECT_TRUE(client->next_device_list(seconds(5)).has_value());
}

TEST_F(DevicePluginServerTest, OversizedMessageIsRefusedAndTheServerGoesOn) {
  const auto kubelet_client = start_and_connect();
  ASSERT_NE(kubelet_client, nullptr);
  const auto start = std::chrono::steady_clock::now();
  {
    // Its own connection: the client's transport lingers over the unsent rest of the message.
    FakePluginClient client(dir_ / "slicelab-nvidia.com-gpu.sock", false);
    const grpc::Status oversized =
        client.call_raw("/v1beta1.DevicePlugin/Allocate",
                        std::string(device_plugin::kMaxReceiveMessageBytes + 1, '\x00'));
    EXPECT_EQ(oversized.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(5));
  EXPECT_EQ(plugin_.allocate_calls.load(), 0);
  EXPECT_TRUE(kubelet_client->allocate({{"GPU-a"}}).ok());
}

TEST_F(DevicePluginServerTest, PluginExceptionIsInternalAndTheServerGoesOn) {
  StubGpuPlugin throwing(health_, {"GPU-throws", "GPU-b"});
  // The runner stops before `throwing` goes, whichever way the test ends.
  struct StopRunner {
    std::unique_ptr<device_plugin::PluginRunner>& runner;
    ~StopRunner() { runner.reset(); }
  } stop_first{runner_};
  kubelet_ = std::make_unique<FakeKubelet>(dir_);
  start_runner({&throwing});
  ASSERT_TRUE(kubelet_->wait_for_registrations(1, seconds(5)));
  const auto client = kubelet_->client("nvidia.com/gpu");
  ASSERT_NE(client, nullptr);
  const auto thrown = client->allocate({{"GPU-throws"}});
  EXPECT_EQ(thrown.status.error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_EQ(thrown.status.error_message(), "the driver fell over");
  EXPECT_TRUE(client->allocate({{"GPU-b"}}).ok());
}

TEST_F(DevicePluginServerTest, StopDuringListAndWatchReturnsWithinASecond) {
  const auto client = start_and_connect();
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->next_device_list(seconds(5)).has_value());
  const auto start = std::chrono::steady_clock::now();
  runner_->stop();
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, seconds(1));
  EXPECT_TRUE(client->wait_for_stream_end(seconds(1)).has_value());
  EXPECT_FALSE(std::filesystem::exists(dir_ / "slicelab-nvidia.com-gpu.sock"));
  EXPECT_FALSE(runner_->running());
  // The folder's other files are left alone.
  EXPECT_TRUE(is_unix_socket(dir_ / "kubelet.sock"));
}

TEST_F(DevicePluginServerTest, StaleSocketIsReplacedAnyOtherFileIsKept) {
  // A socket file left by an earlier run (bound, never removed).
  const auto stale = dir_ / device_plugin::plugin_socket_name("nvidia.com/gpu");
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, stale.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  ::close(fd);
  device_plugin::DevicePluginServer server(plugin_, health_, dir_);
  server.start();
  EXPECT_TRUE(server.socket_is_ours());
  FakePluginClient client(stale, false);
  EXPECT_TRUE(client.options().ok());
  server.stop();
  EXPECT_FALSE(std::filesystem::exists(stale));

  // A regular file where another resource's socket would go is not ours to remove.
  StubGpuPlugin other(health_, {"GPU-x"}, "example.com/thing");
  const auto taken = dir_ / device_plugin::plugin_socket_name("example.com/thing");
  std::ofstream(taken) << "keep me";
  device_plugin::DevicePluginServer refused(other, health_, dir_);
  EXPECT_THROW(refused.start(), std::runtime_error);
  std::ifstream in(taken);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "keep me");
}

}  // namespace
}  // namespace slicelab::testing
