// The runner's life with a kubelet that comes and goes: re-registration on a recreated
// kubelet.sock or a deleted plugin socket, retries while the kubelet refuses or is absent.
#include <chrono>
#include <thread>

#include "backends/device_plugin/plugin_server.h"
#include "tests/device_plugin/stub_gpu_plugin.h"

namespace slicelab::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// The kubelet's client of `resource` once it answers and streams: a registration can be
// followed by a second one (a restart noticed while registering), which replaces the client.
std::shared_ptr<FakePluginClient> serving_client(const FakeKubelet& kubelet,
                                                 const std::string& resource,
                                                 std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    if (auto client = kubelet.client(resource)) {
      if (client->options().ok() && client->next_device_list(milliseconds(300)).has_value()) {
        return client;
      }
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
  return nullptr;
}

using PluginRunnerTest = DevicePluginGrpcFixture;

TEST_F(PluginRunnerTest, KubeletRestartLeadsToRegistrationOnAFreshSocket) {
  ASSERT_NE(start_and_connect(), nullptr);
  const auto socket = dir_ / "slicelab-nvidia.com-gpu.sock";

  // The kubelet goes away (its socket with it) and a new one starts: it deletes the plugin
  // sockets, then creates kubelet.sock.
  kubelet_->stop();
  kubelet_.reset();
  kubelet_ = std::make_unique<FakeKubelet>(dir_);
  ASSERT_TRUE(kubelet_->wait_for_registrations(1, seconds(5)));
  const auto registration = kubelet_->registrations().front();
  EXPECT_EQ(registration.resource_name(), "nvidia.com/gpu");
  EXPECT_EQ(registration.endpoint(), "slicelab-nvidia.com-gpu.sock");
  EXPECT_EQ(registration.version(), "v1beta1");

  const auto client = serving_client(*kubelet_, "nvidia.com/gpu", seconds(5));
  ASSERT_NE(client, nullptr);
  const auto allocated = client->allocate({{"GPU-a"}});
  ASSERT_TRUE(allocated.ok()) << allocated.status.error_message();
  // The new kubelet deleted the old socket: the one that serves is a fresh one.
  EXPECT_TRUE(std::filesystem::exists(socket));
  EXPECT_TRUE(eventually([&] { return runner_->registrations() >= 2; }, seconds(1)));
}

TEST_F(PluginRunnerTest, DeletedPluginSocketLeadsToANewSocketAndRegistration) {
  ASSERT_NE(start_and_connect(), nullptr);
  const auto socket = dir_ / "slicelab-nvidia.com-gpu.sock";
  std::filesystem::remove(socket);
  ASSERT_TRUE(kubelet_->wait_for_registrations(2, seconds(5)));
  EXPECT_TRUE(std::filesystem::exists(socket));
  const auto client = serving_client(*kubelet_, "nvidia.com/gpu", seconds(5));
  ASSERT_NE(client, nullptr);
  EXPECT_TRUE(client->allocate({{"GPU-b"}}).ok());
}

TEST_F(PluginRunnerTest, FolderRemovedAndRecreatedIsWatchedAgain) {
  ASSERT_NE(start_and_connect(), nullptr);
  kubelet_->stop();
  kubelet_.reset();
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
  kubelet_ = std::make_unique<FakeKubelet>(dir_);
  ASSERT_TRUE(kubelet_->wait_for_registrations(1, seconds(5)));
  const auto client = serving_client(*kubelet_, "nvidia.com/gpu", seconds(5));
  ASSERT_NE(client, nullptr);
  EXPECT_TRUE(client->allocate({{"GPU-c"}}).ok());
}

TEST_F(PluginRunnerTest, RefusedRegistrationIsRetriedWithBackOff) {
  kubelet_ = std::make_unique<FakeKubelet>(dir_);
  kubelet_->set_refuse(true);
  start_runner({&plugin_});
  ASSERT_TRUE(eventually([&] { return kubelet_->refusals() >= 3; }, seconds(5)));
  EXPECT_TRUE(kubelet_->registrations().empty());
  kubelet_->set_refuse(false);
  ASSERT_TRUE(kubelet_->wait_for_registrations(1, seconds(5)));
  EXPECT_TRUE(eventually([&] { return runner_->registrations() == 1; }, seconds(1)));
}

TEST_F(PluginRunnerTest, KubeletStartingAfterThePluginIsRegisteredWith) {
  start_runner({&plugin_});
  EXPECT_TRUE(std::filesystem::exists(dir_ / "slicelab-nvidia.com-gpu.sock"));
  std::this_thread::sleep_for(milliseconds(50));  // a few failed attempts first
  kubelet_ = std::make_unique<FakeKubelet>(dir_);
  ASSERT_TRUE(kubelet_->wait_for_registrations(1, seconds(5)));
  const auto client = serving_client(*kubelet_, "nvidia.com/gpu", seconds(5));
  ASSERT_NE(client, nullptr);
}

TEST_F(PluginRunnerTest, StopWhileWaitingForAnAbsentKubeletIsPrompt) {
  auto options = fast_options();
  options.register_timeout = seconds(30);  // a Register call in flight must be cancelled
  runner_ = std::make_unique<device_plugin::PluginRunner>(
      std::vector<device_plugin::ResourcePlugin*>{&plugin_}, health_, options);
  runner_->start();
  std::this_thread::sleep_for(milliseconds(50));
  const auto start = std::chrono::steady_clock::now();
  runner_->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(1));
  // Started again after a stop, it serves again.
  runner_->start();
  EXPECT_TRUE(runner_->running());
  runner_->stop();
}

TEST_F(PluginRunnerTest, MissingFolderFailsToStart) {
  auto options = fast_options();
  options.plugin_dir = dir_ / "absent";
  device_plugin::PluginRunner runner(std::vector<device_plugin::ResourcePlugin*>{&plugin_}, health_,
                                     options);
  EXPECT_THROW(runner.start(), std::runtime_error);
  EXPECT_FALSE(runner.running());
}

}  // namespace
}  // namespace slicelab::testing
