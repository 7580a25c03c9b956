// `slicelab cdi generate` on the fake NVML: in each mode, the spec it prints is valid, has the
// CDI schema's required fields, and names exactly the devices the plugin's resources advertise.
// Needs SLICELAB_BINARY (with `cdi generate` wired) and SLICELAB_FAKES (the fake NVML's folder).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "backends/device_plugin/cdi_spec.h"
#include "backends/device_plugin/cdi_spec_text.h"
#include "backends/device_plugin/device_health.h"
#include "backends/device_plugin/node_resources.h"
#include "backends/device_plugin/plugin_config.h"
#include "backends/device_plugin/pod_source.h"
#include "backends/local/gpu_detection.h"
#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"

namespace slicelab::device_plugin {
namespace {

const std::string kGenerateFakeNvml = std::string(SLICELAB_FAKES) + "/libnvidia-ml.so.1";

class NoPendingPods final : public PodSource {
 public:
  std::optional<PendingPod> pending_pod(std::string_view, int) override { return std::nullopt; }
  void mark_allocated(const PendingPod&) override {}
};

class CdiGenerate : public slicelab::testing::TempFilesTest {
 protected:
  void SetUp() override {
    TempFilesTest::SetUp();
    ::setenv("SLICELAB_FAKE_DEVICES", "2", 1);
  }
  void TearDown() override {
    ::unsetenv("SLICELAB_FAKE_DEVICES");
    TempFilesTest::TearDown();
  }

  // The device IDs the plugin's resources advertise for `config_text`, in their order.
  std::vector<std::string> plugin_ids(const std::string& config_text) {
    const NodePluginConfig config = parse_node_plugin_config(config_text, "config.yaml");
    const GpuDetection detection = detect_gpus(kGenerateFakeNvml);
    EXPECT_TRUE(detection.ok()) << detection.problem;
    DeviceHealth health;
    NoPendingPods pods;
    std::vector<std::string> ids;
    for (const auto& resource : make_node_resources(config, detection.gpus, health, &pods))
      for (const AdvertisedDevice& device : resource->devices()) ids.push_back(device.id);
    return ids;
  }

  // `slicelab cdi generate` on the fake NVML, printed in `format`.
  std::string generate(const std::string& config_text, const std::string& format) {
    const std::string config = write("config.yaml", config_text);
    const slicelab::testing::CliRun run = slicelab::testing::run_program(
        SLICELAB_BINARY,
        "cdi generate --config " + slicelab::testing::shell_quote(config) + " --format " + format +
            " -o - --dev-root " + slicelab::testing::shell_quote(dir_.string()),
        dir_, "generate-" + format,
        "SLICELAB_FAKE_DEVICES=2 SLICELAB_NVML_LIBRARY=" +
            slicelab::testing::shell_quote(kGenerateFakeNvml));
    EXPECT_EQ(run.status, 0) << run.err;
    return run.out;
  }

  void expect_spec_names_the_plugins_devices(const std::string& config_text,
                                             const std::vector<std::string>& expected) {
    // Compared as sets: the spec keeps the resources' order, which the test need not know.
    std::vector<std::string> want = expected;
    std::sort(want.begin(), want.end());
    std::vector<std::string> ids = plugin_ids(config_text);
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(ids, want);
    const CdiSpec spec = parse_cdi_spec(generate(config_text, "yaml"), "stdout");
    EXPECT_TRUE(validate_cdi_spec(spec).empty());
    EXPECT_EQ(spec.kind, "slicelab.io/gpu");
    std::vector<std::string> names;
    for (const CdiDevice& device : spec.devices) names.push_back(device.name);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, want);
    // The schema's required fields (schema/schema.json of the CDI repository) in the JSON form.
    const nlohmann::json j = nlohmann::json::parse(generate(config_text, "json"));
    for (const char* key : {"cdiVersion", "kind", "devices"}) {
      EXPECT_TRUE(j.contains(key)) << key;
    }
    for (const nlohmann::json& device : j["devices"]) {
      EXPECT_TRUE(device.contains("name") && device.contains("containerEdits")) << device.dump();
    }
  }
};

TEST_F(CdiGenerate, WholeGpus) {
  expect_spec_names_the_plugins_devices("version: v1\n", {"GPU-fake-0000", "GPU-fake-0001"});
}

TEST_F(CdiGenerate, TimeSliceReplicas) {
  expect_spec_names_the_plugins_devices(
      "version: v1\nsharing:\n  timeSlicing:\n    resources:\n      - name: nvidia.com/gpu\n"
      "        replicas: 2\n",
      {"GPU-fake-0000::0", "GPU-fake-0000::1", "GPU-fake-0001::0", "GPU-fake-0001::1"});
}

// Every host path of the config in this test's folder: nothing here may read or write the
// machine's /var/lib/slicelab.
std::string interposer_config(const std::filesystem::path& dir) {
  return "version: v1\nslicelab:\n  interposer:\n    splitCount: 2\n    hostPreloadDir: " +
         (dir / "preload").string() + "\n    hostRegionRoot: " + (dir / "regions").string() + "\n";
}

TEST_F(CdiGenerate, InterposerShares) {
  expect_spec_names_the_plugins_devices(interposer_config(dir_),
                                        {"GPU-fake-0000::share-0", "GPU-fake-0000::share-1",
                                         "GPU-fake-0001::share-0", "GPU-fake-0001::share-1"});
  // Printing the spec wrote nothing: the preload file is the plugin's to write when it serves.
  EXPECT_FALSE(std::filesystem::exists(dir_ / "preload"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "regions"));
}

TEST_F(CdiGenerate, WritesTheSpecAndNothingElse) {
  const std::string config = write("config.yaml", interposer_config(dir_));
  const std::string out = (dir_ / "cdi" / "slicelab.yaml").string();
  const auto generate_to = [&](const std::string& output, const std::string& name) {
    return slicelab::testing::run_program(
        SLICELAB_BINARY,
        "cdi generate --config " + slicelab::testing::shell_quote(config) + " -o " +
            slicelab::testing::shell_quote(output) + " --dev-root " +
            slicelab::testing::shell_quote(dir_.string()),
        dir_, name,
        "SLICELAB_FAKE_DEVICES=2 SLICELAB_NVML_LIBRARY=" +
            slicelab::testing::shell_quote(kGenerateFakeNvml));
  };
  const slicelab::testing::CliRun run = generate_to(out, "to-file");
  ASSERT_EQ(run.status, 0) << run.err;
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir_ / "cdi"))
    files.push_back(e.path().filename().string());
  EXPECT_EQ(files, std::vector<std::string>{"slicelab.yaml"});
  EXPECT_EQ(parse_cdi_spec(slicelab::testing::read_file(out), out).devices.size(), 4u);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "preload"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "regions"));

  // An output folder under a link is refused, with nothing written through it.
  std::filesystem::create_directories(dir_ / "real");
  std::filesystem::create_directory_symlink(dir_ / "real", dir_ / "link");
  const slicelab::testing::CliRun linked =
      generate_to((dir_ / "link" / "cdi" / "slicelab.yaml").string(), "linked");
  EXPECT_NE(linked.status, 0);
  EXPECT_NE(linked.err.find((dir_ / "link").string() + " is a symbolic link"), std::string::npos)
      << linked.err;
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "real"));
}

}  // namespace
}  // namespace slicelab::device_plugin
