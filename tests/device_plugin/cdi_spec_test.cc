// CDI specs (backends/device_plugin/cdi_spec*, cli/cdi_spec_file): the spec built from a node's
// devices has every field the CDI schema requires, round-trips through JSON and YAML, and each
// rule of the spec rejects its own kind of mistake with its own message; the writer never
// replaces a file that is not slicelab's spec.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/device_plugin/cdi_spec.h"
#include "backends/device_plugin/cdi_spec_text.h"
#include "backends/device_plugin/device_health.h"
#include "backends/device_plugin/interposer_share_resource.h"
#include "backends/device_plugin/plugin_config.h"
#include "backends/device_plugin/pod_source.h"
#include "cli/cdi_spec_file.h"
#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"

namespace slicelab::device_plugin {
namespace {

using slicelab::testing::message_of;

// The schema's required fields, copied from github.com/cncf-tags/container-device-interface
// at 05ae4b5 (schema/schema.json: the spec and its devices; schema/defs.json: DeviceNode,
// Mount, Hook). The JSON slicelab writes is checked against each.
const std::vector<std::string> kSchemaSpecRequired = {"cdiVersion", "kind", "devices"};
const std::vector<std::string> kSchemaDeviceRequired = {"name", "containerEdits"};
const std::vector<std::string> kSchemaDeviceNodeRequired = {"path"};
const std::vector<std::string> kSchemaMountRequired = {"hostPath", "containerPath"};
const std::vector<std::string> kSchemaHookRequired = {"hookName", "path"};
// defs.json containerEdits' properties: the only keys an edits object may have.
const std::vector<std::string> kSchemaEditsKeys = {
    "env", "deviceNodes", "netDevices", "mounts", "hooks", "intelRdt", "additionalGids"};

constexpr const char* kGpu = "GPU-6f1c2b9a-0000-4000-8000-000000000001";

// What the plugin's resources would give for one GPU in each mode: the whole card, a
// time-slice replica, a MIG instance and an interposer share.
std::vector<CdiDeviceEdits> node_devices() {
  std::vector<CdiDeviceEdits> out;
  ContainerAllocation whole;
  whole.envs = {{"NVIDIA_VISIBLE_DEVICES", kGpu}, {"CUDA_VISIBLE_DEVICES", kGpu}};
  whole.devices = {DeviceNode{"/dev/nvidia0", "/dev/nvidia0", "rw"}};
  out.push_back({kGpu, whole});
  out.push_back({std::string(kGpu) + "::1", whole});
  ContainerAllocation mig;
  mig.envs = {{"CUDA_VISIBLE_DEVICES", "MIG-0e5d4c3b-1111-4000-8000-000000000002"}};
  mig.devices = {DeviceNode{"/dev/nvidia0", "/dev/nvidia0", "rw"},
                 DeviceNode{"/dev/nvidia-caps/nvidia-cap21", "/dev/nvidia-caps/nvidia-cap21", "r"}};
  out.push_back({"MIG-0e5d4c3b-1111-4000-8000-000000000002", mig});
  ContainerAllocation share = whole;
  share.envs["SLICELAB_MEMORY_LIMIT_MIB"] = "8192";
  share.mounts = {
      Mount{"/usr/local/lib/slicelab/libslicelab-interposer.so",
            "/usr/local/lib/slicelab/libslicelab-interposer.so", true},
      Mount{"/etc/ld.so.preload", "/var/lib/slicelab/device-plugin/ld.so.preload", true},
      Mount{"/var/run/slicelab", "/var/lib/slicelab/regions/share-0", false}};
  out.push_back({std::string(kGpu) + "::share-0", share});
  return out;
}

ContainerAllocation control_nodes() {
  ContainerAllocation common;
  common.devices = {DeviceNode{"/dev/nvidiactl", "/dev/nvidiactl", "rw"},
                    DeviceNode{"/dev/nvidia-uvm", "/dev/nvidia-uvm", "rw"}};
  return common;
}

CdiSpec node_spec() {
  return build_cdi_spec(node_devices(), "slicelab.io/gpu", control_nodes());
}

// A valid one-device spec that each rule test breaks in one place.
CdiSpec small_spec() {
  CdiSpec spec;
  spec.version = "0.5.0";
  spec.kind = "slicelab.io/gpu";
  spec.devices.push_back(CdiDevice{"GPU-a", {}});
  spec.devices[0].container_edits.env = {"CUDA_VISIBLE_DEVICES=GPU-a"};
  return spec;
}

// The one error of `spec`, or all of them joined when there is not exactly one.
std::string only_error(const CdiSpec& spec) {
  const std::vector<std::string> errors = validate_cdi_spec(spec);
  if (errors.size() == 1) return errors[0];
  std::string all = std::to_string(errors.size()) + " errors:";
  for (const std::string& e : errors) all += " | " + e;
  return all;
}

void expect_keys(const nlohmann::json& object, const std::vector<std::string>& required,
                 const std::string& where) {
  ASSERT_TRUE(object.is_object()) << where;
  for (const std::string& key : required) {
    EXPECT_TRUE(object.contains(key)) << where << " lacks the required " << key;
  }
}

TEST(CdiSpecBuild, EveryFieldTheSchemaRequiresIsWritten) {
  const nlohmann::json j = nlohmann::json::parse(cdi_spec_to_json(node_spec()));
  expect_keys(j, kSchemaSpecRequired, "spec");
  ASSERT_TRUE(j["cdiVersion"].is_string());
  ASSERT_TRUE(j["kind"].is_string());
  ASSERT_TRUE(j["devices"].is_array());
  EXPECT_EQ(j["kind"], "slicelab.io/gpu");
  ASSERT_EQ(j["devices"].size(), 4u);
  const auto check_edits = [](const nlohmann::json& edits, const std::string& where) {
    ASSERT_TRUE(edits.is_object()) << where;
    for (const auto& [key, value] : edits.items()) {
      EXPECT_NE(std::find(kSchemaEditsKeys.begin(), kSchemaEditsKeys.end(), key),
                kSchemaEditsKeys.end())
          << where << " has " << key;
    }
    if (edits.contains("env")) {
      for (const auto& e : edits["env"]) {
        ASSERT_TRUE(e.is_string());
        EXPECT_GT(e.get<std::string>().find('='), 0u) << where;
      }
    }
    for (const auto& node : edits.value("deviceNodes", nlohmann::json::array())) {
      expect_keys(node, kSchemaDeviceNodeRequired, where + ".deviceNodes[]");
    }
    for (const auto& mount : edits.value("mounts", nlohmann::json::array())) {
      expect_keys(mount, kSchemaMountRequired, where + ".mounts[]");
      ASSERT_TRUE(mount["options"].is_array());
    }
    for (const auto& hook : edits.value("hooks", nlohmann::json::array())) {
      expect_keys(hook, kSchemaHookRequired, where + ".hooks[]");
    }
  };
  for (size_t i = 0; i < j["devices"].size(); ++i) {
    const std::string where = "devices[" + std::to_string(i) + "]";
    expect_keys(j["devices"][i], kSchemaDeviceRequired, where);
    ASSERT_TRUE(j["devices"][i]["name"].is_string());
    check_edits(j["devices"][i]["containerEdits"], where + ".containerEdits");
    EXPECT_FALSE(j["devices"][i]["containerEdits"].empty()) << where;
  }
  check_edits(j["containerEdits"], "containerEdits");
}

TEST(CdiSpecBuild, DevicesKeepTheirNamesOrderAndEdits) {
  const CdiSpec spec = node_spec();
  ASSERT_EQ(spec.devices.size(), 4u);
  EXPECT_EQ(spec.devices[0].name, kGpu);
  EXPECT_EQ(spec.devices[1].name, std::string(kGpu) + "::1");
  EXPECT_EQ(spec.devices[2].name, "MIG-0e5d4c3b-1111-4000-8000-000000000002");
  EXPECT_EQ(spec.devices[3].name, std::string(kGpu) + "::share-0");
  // env sorted by name (the allocation's map), "NAME=VALUE".
  EXPECT_EQ(spec.devices[0].container_edits.env,
            (std::vector<std::string>{std::string("CUDA_VISIBLE_DEVICES=") + kGpu,
                                      std::string("NVIDIA_VISIBLE_DEVICES=") + kGpu}));
  // Same host and container path: no hostPath.
  ASSERT_EQ(spec.devices[0].container_edits.device_nodes.size(), 1u);
  EXPECT_EQ(spec.devices[0].container_edits.device_nodes[0],
            (CdiDeviceNode{"/dev/nvidia0", "", "rw"}));
  const std::vector<CdiMount>& mounts = spec.devices[3].container_edits.mounts;
  ASSERT_EQ(mounts.size(), 3u);
  EXPECT_EQ(mounts[1], (CdiMount{"/var/lib/slicelab/device-plugin/ld.so.preload",
                                 "/etc/ld.so.preload",
                                 {"ro", "nosuid", "nodev", "bind"},
                                 ""}));
  EXPECT_EQ(mounts[2].options, (std::vector<std::string>{"rw", "nosuid", "nodev", "bind"}));
  EXPECT_EQ(spec.container_edits.device_nodes.size(), 2u);
  EXPECT_TRUE(validate_cdi_spec(spec).empty()) << only_error(spec);
}

TEST(CdiSpecBuild, AVersionOnlyAsNewAsTheFieldsNeed) {
  // SPEC.md's table: nothing past v0.3.0's fields here.
  EXPECT_EQ(node_spec().version, "0.3.0");
  // A device node whose host path differs: hostPath, v0.5.0.
  std::vector<CdiDeviceEdits> devices = node_devices();
  devices[2].edits.devices[1].host_path = "/run/nvidia-caps/nvidia-cap21";
  EXPECT_EQ(build_cdi_spec(devices, "slicelab.io/gpu").version, "0.5.0");
  // A name starting with a digit (deviceIDStrategy index): v0.5.0.
  devices = node_devices();
  devices[0].name = "0";
  EXPECT_EQ(build_cdi_spec(devices, "slicelab.io/gpu").version, "0.5.0");
  // A dot in the kind's class: v0.6.0.
  EXPECT_EQ(build_cdi_spec(node_devices(), "slicelab.io/gpu.shared").version, "0.6.0");
  // A mount type: v0.4.0.
  CdiSpec spec = small_spec();
  spec.devices[0].container_edits.mounts.push_back(CdiMount{"/a", "/b", {"bind"}, "none"});
  EXPECT_EQ(minimum_cdi_version(spec), "0.4.0");
  EXPECT_EQ(
      build_cdi_spec(node_devices(), "slicelab.io/gpu", {}, CdiVersionChoice::kCurrent).version,
      "1.1.0");
}

TEST(CdiSpecBuild, ADeviceGivenTwiceIsKeptOnceUnlessItsEditsDiffer) {
  std::vector<CdiDeviceEdits> devices = node_devices();
  devices.push_back(devices[0]);
  EXPECT_EQ(build_cdi_spec(devices, "slicelab.io/gpu").devices.size(), 4u);
  devices.back().edits.envs["EXTRA"] = "1";
  const CdiSpec spec = build_cdi_spec(devices, "slicelab.io/gpu");
  ASSERT_EQ(spec.devices.size(), 5u);
  EXPECT_EQ(only_error(spec),
            std::string("devices[4] \"") + kGpu + "\": name: the same as devices[0]'s");
}

TEST(CdiSpecBuild, ControlNodesAreTheOnesThatExist) {
  const std::filesystem::path dev =
      std::filesystem::temp_directory_path() / ("slicelab-cdi-dev-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dev);
  std::ofstream(dev / "nvidiactl") << "";
  std::ofstream(dev / "nvidia-uvm") << "";
  const ContainerAllocation common = nvidia_control_device_nodes(dev);
  std::filesystem::remove_all(dev);
  ASSERT_EQ(common.devices.size(), 2u);
  EXPECT_EQ(common.devices[0].container_path, "/dev/nvidiactl");
  EXPECT_EQ(common.devices[0].host_path, (dev / "nvidiactl").string());
  EXPECT_EQ(common.devices[1].container_path, "/dev/nvidia-uvm");
  // The host path differs from the container's: hostPath, so v0.5.0.
  EXPECT_EQ(build_cdi_spec(node_devices(), "slicelab.io/gpu", common).version, "0.5.0");
}

TEST(CdiSpecText, JsonAndYamlReadBackToTheSameSpec) {
  CdiSpec spec = node_spec();
  spec.devices[0].container_edits.hooks.push_back(
      CdiHook{"createContainer", "/usr/bin/slicelab-hook", {"hook", "--x"}, {"A=1"}, 5});
  spec.devices[1].container_edits.mounts.push_back(CdiMount{"/a", "/b", {}, "none"});
  spec.version = minimum_cdi_version(spec);
  EXPECT_EQ(parse_cdi_spec(cdi_spec_to_json(spec), "spec.json"), spec);
  EXPECT_EQ(parse_cdi_spec(cdi_spec_to_yaml(spec), "spec.yaml"), spec);
  EXPECT_EQ(cdi_spec_to_yaml(spec).rfind("---\n", 0), 0u);
  // Deterministic: the same input gives the same bytes.
  EXPECT_EQ(cdi_spec_to_json(node_spec()), cdi_spec_to_json(node_spec()));
  EXPECT_EQ(cdi_spec_to_yaml(node_spec()), cdi_spec_to_yaml(node_spec()));
}

TEST(CdiSpecText, YamlKeepsStringsThatLookLikeOtherValues) {
  CdiSpec spec = small_spec();
  spec.devices[0].name = "0";
  spec.devices[0].container_edits.env = {"A=true", "B=null", "C=a: b", "D=#x", "E=~", "F=0x10"};
  spec.devices.push_back(CdiDevice{"1", {{"G=\"q\"\\n"}, {}, {}, {}}});
  EXPECT_EQ(parse_cdi_spec(cdi_spec_to_yaml(spec), "s.yaml"), spec);
  EXPECT_EQ(parse_cdi_spec(cdi_spec_to_json(spec), "s.json"), spec);
}

TEST(CdiSpecText, TheCdiProjectsOwnExampleIsRead) {
  // schema/testdata/good/minimal.json of the CDI repository.
  const CdiSpec spec = parse_cdi_spec(
      R"({"cdiVersion": "0.3.0", "kind": "vendor.com/device", "devices": [{"name": "myDevice",
          "containerEdits": {"deviceNodes": [{"path": "/dev/card1"}]}}]})",
      "minimal.json");
  EXPECT_EQ(spec.kind, "vendor.com/device");
  ASSERT_EQ(spec.devices.size(), 1u);
  EXPECT_EQ(spec.devices[0].container_edits.device_nodes[0].path, "/dev/card1");
  EXPECT_TRUE(validate_cdi_spec(spec).empty()) << only_error(spec);
}

TEST(CdiSpecValidate, InvalidDeviceNamesEachSayWhy) {
  const auto name_error = [](const std::string& name) {
    CdiSpec spec = small_spec();
    spec.devices[0].name = name;
    return only_error(spec);
  };
  EXPECT_EQ(name_error("bad name"),
            "devices[0] \"bad name\": name: invalid character \" \" in device name \"bad name\"");
  EXPECT_EQ(name_error("-x"),
            "devices[0] \"-x\": name: \"-x\" should start with a letter or digit");
  EXPECT_EQ(name_error("x-"), "devices[0] \"x-\": name: \"x-\" should end with a letter or digit");
  EXPECT_EQ(name_error("a/b"),
            "devices[0] \"a/b\": name: invalid character \"/\" in device name \"a/b\"");
  EXPECT_EQ(name_error(""), "devices[0] \"\": name: empty device name");
  EXPECT_EQ(name_error("a\nb"),
            "devices[0] \"a\\x0ab\": name: invalid character \"\\x0a\" in device name "
            "\"a\\x0ab\"");
  // The characters the parser allows, a colon included (replica IDs), and one character.
  EXPECT_EQ(name_error("GPU-a_b.c::3"), "0 errors:");
  EXPECT_EQ(name_error("x"), "0 errors:");
}

TEST(CdiSpecValidate, DuplicateNamesAreRejected) {
  CdiSpec spec = small_spec();
  spec.devices.push_back(spec.devices[0]);
  spec.devices[1].container_edits.env = {"X=1"};
  EXPECT_EQ(only_error(spec), "devices[1] \"GPU-a\": name: the same as devices[0]'s");
}

TEST(CdiSpecValidate, RelativeAndEmptyPathsAreRejected) {
  CdiSpec spec = small_spec();
  spec.devices[0].container_edits.mounts = {CdiMount{"lib/x.so", "/x.so", {}, ""}};
  EXPECT_EQ(only_error(spec),
            "devices[0] \"GPU-a\": containerEdits.mounts[0].hostPath: \"lib/x.so\" is not an "
            "absolute path");
  spec.devices[0].container_edits.mounts = {CdiMount{"/x.so", "", {}, ""}};
  EXPECT_EQ(only_error(spec),
            "devices[0] \"GPU-a\": containerEdits.mounts[0].containerPath: empty");
  spec.devices[0].container_edits.mounts.clear();
  spec.devices[0].container_edits.device_nodes = {CdiDeviceNode{"dev/nvidia0", "", ""}};
  EXPECT_EQ(only_error(spec),
            "devices[0] \"GPU-a\": containerEdits.deviceNodes[0].path: \"dev/nvidia0\" is not an "
            "absolute path");
  spec.devices[0].container_edits.device_nodes = {CdiDeviceNode{"/dev/nvidia0", "nvidia0", ""}};
  EXPECT_EQ(only_error(spec),
            "devices[0] \"GPU-a\": containerEdits.deviceNodes[0].hostPath: \"nvidia0\" is not an "
            "absolute path");
  // Spec-level edits are checked too.
  spec = small_spec();
  spec.container_edits.device_nodes = {CdiDeviceNode{"nvidiactl", "", ""}};
  EXPECT_EQ(only_error(spec),
            "containerEdits.deviceNodes[0].path: \"nvidiactl\" is not an absolute path");
}

TEST(CdiSpecValidate, EnvEntriesNeedANameAndAnEqualsSign) {
  CdiSpec spec = small_spec();
  spec.devices[0].container_edits.env = {"FOO"};
  EXPECT_EQ(only_error(spec),
            "devices[0] \"GPU-a\": containerEdits.env[0] \"FOO\": expected NAME=VALUE");
  spec.devices[0].container_edits.env = {"=x"};
  EXPECT_EQ(only_error(spec),
            "devices[0] \"GPU-a\": containerEdits.env[0] \"=x\": expected NAME=VALUE");
  spec.devices[0].container_edits.env = {"EMPTY="};  // an empty value is a value
  EXPECT_EQ(only_error(spec), "0 errors:");
}

TEST(CdiSpecValidate, ADeviceWithoutEditsIsRejected) {
  CdiSpec spec = small_spec();
  spec.devices[0].container_edits = {};
  EXPECT_EQ(only_error(spec),
            "devices[0] \"GPU-a\": containerEdits: no edits (a device needs an env, deviceNode, "
            "mount or hook)");
  spec.devices.clear();
  EXPECT_EQ(only_error(spec), "devices: no devices (a spec needs at least one)");
}

TEST(CdiSpecValidate, KindIsVendorSlashClass) {
  const auto kind_error = [](const std::string& kind) {
    CdiSpec spec = small_spec();
    spec.kind = kind;
    spec.version = "1.1.0";  // dots in the class are allowed from 0.6.0
    return only_error(spec);
  };
  EXPECT_EQ(kind_error(""), "kind: missing");
  EXPECT_EQ(kind_error("slicelab.io"), "kind: \"slicelab.io\": expected vendor/class");
  EXPECT_EQ(kind_error("/gpu"), "kind: \"/gpu\": expected vendor/class");
  EXPECT_EQ(kind_error("slicelab.io/"), "kind: \"slicelab.io/\": expected vendor/class");
  EXPECT_EQ(kind_error("slicelab.io/gpu/x"),
            "kind: invalid class: invalid character \"/\" in name \"gpu/x\"");
  EXPECT_EQ(kind_error("1abc/gpu"), "kind: invalid vendor: \"1abc\" should start with a letter");
  EXPECT_EQ(kind_error("slicelab.io/gpu-"),
            "kind: invalid class: \"gpu-\" should end with a letter or digit");
  EXPECT_EQ(kind_error("slicelab.io/" + std::string(64, 'g')),
            "kind: class longer than 63 characters");
  // SPEC.md's own examples of valid kinds.
  EXPECT_EQ(kind_error("vendor.com/foo"), "0 errors:");
  EXPECT_EQ(kind_error("foo.bar.baz/foo-bar123.B_az"), "0 errors:");
}

TEST(CdiSpecValidate, VersionIsKnownAndNewEnoughForTheFields) {
  CdiSpec spec = small_spec();
  spec.version = "2.0.0";
  EXPECT_EQ(only_error(spec),
            "cdiVersion: \"2.0.0\" is not a released CDI version (0.1.0, 0.2.0, 0.3.0, 0.4.0, "
            "0.5.0, 0.6.0, 0.7.0, 0.8.0, 1.0.0, 1.1.0)");
  spec.version = "";
  EXPECT_EQ(only_error(spec), "cdiVersion: missing");
  spec.version = "v1.0.0";  // the CDI library accepts a leading v
  EXPECT_EQ(only_error(spec), "0 errors:");
  spec.version = "0.3.0";
  spec.devices[0].container_edits.device_nodes = {CdiDeviceNode{"/dev/nvidia0", "/dev/x", ""}};
  EXPECT_EQ(only_error(spec),
            "cdiVersion: \"0.3.0\" is older than the fields used need: the version must be at "
            "least 0.5.0");
}

TEST(CdiSpecValidate, PermissionsAndHooksFollowTheLibrarysRules) {
  CdiSpec spec = small_spec();
  spec.devices[0].container_edits.device_nodes = {CdiDeviceNode{"/dev/nvidia0", "", "rwx"}};
  EXPECT_EQ(only_error(spec),
            "devices[0] \"GPU-a\": containerEdits.deviceNodes[0].permissions: \"rwx\": expected "
            "letters of \"rwm\" or \"none\"");
  spec.devices[0].container_edits.device_nodes = {CdiDeviceNode{"/dev/nvidia0", "", "none"}};
  EXPECT_EQ(only_error(spec), "0 errors:");
  spec.devices[0].container_edits.hooks = {CdiHook{"preStart", "/bin/h", {}, {"X"}, 0}};
  const std::vector<std::string> errors = validate_cdi_spec(spec);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0],
            "devices[0] \"GPU-a\": containerEdits.hooks[0].hookName: \"preStart\" is not one of "
            "prestart, createRuntime, createContainer, startContainer, poststart, poststop");
  EXPECT_EQ(errors[1],
            "devices[0] \"GPU-a\": containerEdits.hooks[0].env[0] \"X\": expected NAME=VALUE");
  EXPECT_EQ(errors[2],
            "devices[0] \"GPU-a\": containerEdits.hooks[0].timeout: 0 must be greater than zero");
}

TEST(CdiSpecParse, EachRequiredFieldOfTheSchemaIsRequired) {
  const nlohmann::json good = nlohmann::json::parse(cdi_spec_to_json(small_spec()));
  for (const std::string& key : kSchemaSpecRequired) {
    nlohmann::json j = good;
    j.erase(key);
    EXPECT_EQ(message_of([&] { parse_cdi_spec(j.dump(), "s.json"); }),
              "s.json: the required field \"" + key + "\" is missing");
  }
  for (const std::string& key : kSchemaDeviceRequired) {
    nlohmann::json j = good;
    j["devices"][0].erase(key);
    EXPECT_EQ(message_of([&] { parse_cdi_spec(j.dump(), "s.json"); }),
              "s.json: devices[0]: the required field \"" + key + "\" is missing");
  }
  nlohmann::json j = good;
  j["devices"][0]["containerEdits"]["mounts"] = {{{"hostPath", "/a"}}};
  EXPECT_EQ(message_of([&] { parse_cdi_spec(j.dump(), "s.json"); }),
            "s.json: devices[0].containerEdits.mounts[0]: the required field \"containerPath\" "
            "is missing");
  j = good;
  j["devices"][0]["containerEdits"]["deviceNodes"] = {{{"hostPath", "/a"}}};
  EXPECT_EQ(message_of([&] { parse_cdi_spec(j.dump(), "s.json"); }),
            "s.json: devices[0].containerEdits.deviceNodes[0]: the required field \"path\" is "
            "missing");
}

TEST(CdiSpecParse, HostileOrForeignTextIsRefusedWithAMessage) {
  const auto error = [](const std::string& text) {
    return message_of([&] { parse_cdi_spec(text, "f"); });
  };
  EXPECT_EQ(error(""), "f: empty: not a CDI spec");
  EXPECT_EQ(error(R"({"cdiVersion":"0.3.0","kind":"a/b","devices":[],"extra":1})"),
            "f: extra: unknown field (expected one of cdiVersion, kind, devices, containerEdits)");
  EXPECT_EQ(error(R"({"cdiVersion":"0.6.0","kind":"a/b","devices":[],"annotations":{}})"),
            "f: annotations: a CDI field slicelab does not read (this spec is not one slicelab "
            "wrote)");
  EXPECT_EQ(error(R"({"cdiVersion":3,"kind":"a/b","devices":[]})"),
            "f: cdiVersion: expected a string, found a number");
  EXPECT_EQ(error(R"({"cdiVersion":"0.3.0","kind":"a/b","devices":{}})"),
            "f: devices: expected a list, found a mapping");
  EXPECT_EQ(error(R"({"cdiVersion":"0.3.0","kind":"a/b","kind":"c/d","devices":[]})"),
            "f: the key \"kind\" appears twice in one object");
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "{\"a\":";
  EXPECT_EQ(error(deep + "1" + std::string(100, '}')),
            "f: nested deeper than 16 levels: not a CDI spec");
  EXPECT_NE(error("{\"cdiVersion\": \"0.3.0\""), "no error");
  EXPECT_EQ(error("[1, 2]"), "f: expected a mapping, found a list");
  EXPECT_EQ(error(std::string(kMaxCdiSpecBytes + 1, ' ')),
            "f: 4194305 bytes: larger than the 4194304 a CDI spec may have");
  // YAML: aliases, duplicate keys and deep nesting are refused by the YAML syntax check.
  EXPECT_NE(error("cdiVersion: &v \"0.3.0\"\nkind: *v\ndevices: []\n"), "no error");
  EXPECT_NE(error("kind: a/b\nkind: c/d\n"), "no error");
  EXPECT_NE(error(std::string(200, '[')), "no error");
  // Found by the fuzzer: text that is not UTF-8, and a YAML escape yaml-cpp decodes to a byte
  // that is not (each would have been written back differently).
  EXPECT_EQ(error("kind: \"a\x9f\"\n"),
            "f:1:9: invalid UTF-8 (byte 0x9F); the file must be UTF-8 text");
  EXPECT_EQ(error("kind: \"a\\_b\"\n"),
            "f:1:7: a string that is not UTF-8 once its escapes are read");
  EXPECT_EQ(error("cdiVersion: \"0.3.0\"\nkind: a/b\ndevices:\n  - name: x\n    containerEdits:\n"
                  "      hooks:\n        - {hookName: poststop, path: /h, timeout: soon}\n"),
            "f: devices[0].containerEdits.hooks[0].timeout: expected a whole number, found a "
            "string");
}

// --- the spec of a real resource: interposer shares (interposer_share_resource.h) ---

class NoPodsForSpec final : public PodSource {
 public:
  std::optional<PendingPod> pending_pod(std::string_view, int) override { return std::nullopt; }
  void mark_allocated(const PendingPod&) override {}
};

class CdiSpecOfShares : public slicelab::testing::TempFilesTest {};

TEST_F(CdiSpecOfShares, NamesTheDevicesThePluginAdvertises) {
  NodePluginConfig config;
  config.mode = ShareMode::kInterposer;
  config.interposer.split_count = 2;
  config.interposer.host_preload_dir = (dir_ / "preload").string();
  config.interposer.host_region_root = (dir_ / "regions").string();
  std::vector<DetectedGpu> gpus(2);
  gpus[0].uuid = "GPU-aaaa";
  gpus[1].index = 1;
  gpus[1].uuid = "GPU-bbbb";
  DeviceHealth health;
  NoPodsForSpec pods;
  const auto resource = make_interposer_share_resource(config, gpus, health, pods);
  const std::vector<std::string> expected = {"GPU-aaaa::share-0", "GPU-aaaa::share-1",
                                             "GPU-bbbb::share-0", "GPU-bbbb::share-1"};
  std::vector<std::string> advertised;
  for (const AdvertisedDevice& d : resource->devices()) advertised.push_back(d.id);
  EXPECT_EQ(advertised, expected);
  const CdiSpec spec = build_cdi_spec(resource->cdi_devices(), config.cdi_kind, control_nodes());
  std::vector<std::string> names;
  for (const CdiDevice& d : spec.devices) names.push_back(d.name);
  EXPECT_EQ(names, expected);
  EXPECT_EQ(spec.kind, "slicelab.io/gpu");
  EXPECT_TRUE(validate_cdi_spec(spec).empty()) << only_error(spec);
  // Each share mounts the library and the preload file the plugin wrote, read-only; no field
  // newer than v0.3.0 is used.
  ASSERT_EQ(spec.devices[0].container_edits.mounts.size(), 2u);
  EXPECT_EQ(spec.devices[0].container_edits.mounts[1],
            (CdiMount{(dir_ / "preload" / "ld.so.preload").string(),
                      "/etc/ld.so.preload",
                      {"ro", "nosuid", "nodev", "bind"},
                      ""}));
  EXPECT_EQ(spec.version, "0.3.0");
  const nlohmann::json j = nlohmann::json::parse(cdi_spec_to_json(spec));
  expect_keys(j, kSchemaSpecRequired, "spec");
  for (const auto& device : j["devices"]) {
    expect_keys(device, kSchemaDeviceRequired, "device");
  }
}

// --- the writer (cli/cdi_spec_file) ---

class CdiSpecFile : public slicelab::testing::TempFilesTest {};

TEST_F(CdiSpecFile, WritesReadsBackAndReplacesItsOwnSpec) {
  const std::string path = (dir_ / "cdi" / "slicelab.yaml").string();  // parent made
  write_cdi_spec(node_spec(), CdiFormat::kYaml, path);
  EXPECT_EQ(parse_cdi_spec(slicelab::testing::read_file(path), path), node_spec());
  CdiSpec fewer = node_spec();
  fewer.devices.pop_back();
  write_cdi_spec(fewer, CdiFormat::kYaml, path);  // slicelab's own spec: replaced
  EXPECT_EQ(parse_cdi_spec(slicelab::testing::read_file(path), path), fewer);
  const std::string json_path = (dir_ / "slicelab.io-gpu.json").string();
  write_cdi_spec(node_spec(), cdi_format_for(json_path, ""), json_path);
  EXPECT_EQ(slicelab::testing::read_file(json_path), cdi_spec_to_json(node_spec()));
  // No temporary file is left beside them.
  size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir_ / "cdi"))
    ++files;
  EXPECT_EQ(files, 1u);
}

TEST_F(CdiSpecFile, RefusesToReplaceAFileThatIsNotItsSpec) {
  const std::string foreign = write("notes.yaml", "shopping: [milk]\n");
  EXPECT_NE(message_of([&] {
              write_cdi_spec(node_spec(), CdiFormat::kYaml, foreign);
            }).find("output file '" + foreign + "' exists and is not a CDI spec slicelab wrote"),
            std::string::npos);
  EXPECT_EQ(slicelab::testing::read_file(foreign), "shopping: [milk]\n");
  // NVIDIA's spec: a CDI spec, of another kind.
  CdiSpec nvidia = small_spec();
  nvidia.kind = "nvidia.com/gpu";
  const std::string theirs = write("nvidia.yaml", cdi_spec_to_yaml(nvidia));
  EXPECT_EQ(message_of([&] { write_cdi_spec(node_spec(), CdiFormat::kYaml, theirs); }),
            "output file '" + theirs +
                "' holds the CDI spec of kind nvidia.com/gpu; slicelab replaces only the CDI spec "
                "of kind slicelab.io/gpu it wrote; remove the file or give another --output");
  EXPECT_EQ(slicelab::testing::read_file(theirs), cdi_spec_to_yaml(nvidia));
}

TEST_F(CdiSpecFile, RefusesNamesRuntimesIgnoreLinksAndInvalidSpecs) {
  const std::string txt = (dir_ / "slicelab.txt").string();
  EXPECT_EQ(message_of([&] { write_cdi_spec(node_spec(), CdiFormat::kYaml, txt); }),
            "output file '" + txt +
                "': a CDI spec's name must end in .json or .yaml (container runtimes read no other "
                "file of their CDI folders)");
  EXPECT_FALSE(std::filesystem::exists(txt));
  const std::string target = write("target.yaml", "x: 1\n");
  const std::filesystem::path link = dir_ / "link.yaml";
  std::filesystem::create_symlink(target, link);
  EXPECT_NE(message_of([&] {
              write_cdi_spec(node_spec(), CdiFormat::kYaml, link.string());
            }).find("is a symbolic link"),
            std::string::npos);
  EXPECT_EQ(slicelab::testing::read_file(target), "x: 1\n");
  CdiSpec bad = node_spec();
  bad.devices[0].name = "bad name";
  const std::string out = (dir_ / "bad.yaml").string();
  const std::string message = message_of([&] { write_cdi_spec(bad, CdiFormat::kYaml, out); });
  EXPECT_EQ(message.rfind("the CDI spec for slicelab.io/gpu is not valid:\n  devices[0]", 0), 0u)
      << message;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(CdiSpecFile, ALinkedFolderIsRefusedAndNoForeignFileIsTouched) {
  std::filesystem::create_directories(dir_ / "real");
  std::filesystem::create_directory_symlink(dir_ / "real", dir_ / "link");
  for (const std::filesystem::path& out :
       {dir_ / "link" / "slicelab.yaml", dir_ / "link" / "cdi" / "slicelab.yaml"}) {
    const std::string m =
        message_of([&] { write_cdi_spec(node_spec(), CdiFormat::kYaml, out.string()); });
    EXPECT_NE(m.find((dir_ / "link").string() + " is a symbolic link"), std::string::npos) << m;
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "real"));
  // Files under the temporary names an older writer used stay as they are.
  const std::string path = (dir_ / "cdi" / "slicelab.yaml").string();
  std::filesystem::create_directories(dir_ / "cdi");
  const std::string pid_named =
      write("cdi/slicelab.yaml.slicelab-tmp-" + std::to_string(::getpid()), "theirs");
  write_cdi_spec(node_spec(), CdiFormat::kYaml, path);
  EXPECT_EQ(slicelab::testing::read_file(pid_named), "theirs");
  EXPECT_EQ(parse_cdi_spec(slicelab::testing::read_file(path), path), node_spec());
}

TEST(CdiSpecFileFormat, FromTheOptionElseTheExtension) {
  EXPECT_EQ(cdi_format_for("/var/run/cdi/slicelab.yaml", ""), CdiFormat::kYaml);
  EXPECT_EQ(cdi_format_for("/etc/cdi/slicelab.io-gpu.json", ""), CdiFormat::kJson);
  EXPECT_EQ(cdi_format_for("/etc/cdi/slicelab.io-gpu.json", "yaml"), CdiFormat::kYaml);
  EXPECT_EQ(message_of([] { cdi_format_for("x.yaml", "toml"); }),
            "--format: expected json or yaml, found 'toml'");
}

}  // namespace
}  // namespace slicelab::device_plugin
