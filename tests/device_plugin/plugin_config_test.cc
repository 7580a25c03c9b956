// The node plugin's config file: NVIDIA's v1 format key by key (the README's samples), the
// slicelab section, and each refusal with its file:line:column.
#include <gtest/gtest.h>

#include <string>

#include "backends/device_plugin/plugin_config.h"
#include "tests/support/temp_files.h"
#include "workloads/input_error.h"

namespace slicelab::device_plugin {
namespace {

using slicelab::testing::message_of;

NodePluginConfig parse(const std::string& text) {
  return parse_node_plugin_config(text, "p.yaml");
}
std::string parse_error(const std::string& text) {
  return message_of([&] { parse(text); });
}

TEST(NodePluginConfig, EmptyConfigIsWholeGpusWithNvidiasDefaults) {
  const NodePluginConfig c = parse("version: v1\n");
  EXPECT_EQ(c.source, "p.yaml");
  EXPECT_EQ(c.mode, ShareMode::kWhole);
  EXPECT_EQ(c.mig, MigStrategy::kNone);
  ASSERT_EQ(c.list_strategies.size(), 1u);
  EXPECT_EQ(c.list_strategies[0], DeviceListStrategy::kEnvvar);
  EXPECT_FALSE(c.pass_device_specs);
  EXPECT_FALSE(c.device_id_index);
  EXPECT_EQ(c.cdi_kind, "slicelab.io/gpu");
  EXPECT_EQ(c.cdi_annotation_prefix, "cdi.k8s.io/");
  EXPECT_TRUE(c.replicated.empty());
}

TEST(NodePluginConfig, ReadmeFlagsSample) {
  const NodePluginConfig c = parse(R"(version: v1
flags:
  migStrategy: "mixed"
  failOnInitError: true
  nvidiaDriverRoot: "/"
  mpsRoot: /run/nvidia/mps
  plugin:
    passDeviceSpecs: true
    deviceListStrategy: ["envvar", "cdi-cri"]
    deviceIDStrategy: "index"
    cdiAnnotationPrefix: cdi.example.com/
  gfd:
    oneshot: false
    sleepInterval: 60s
)");
  EXPECT_EQ(c.mig, MigStrategy::kMixed);
  EXPECT_TRUE(c.pass_device_specs);
  ASSERT_EQ(c.list_strategies.size(), 2u);
  EXPECT_EQ(c.list_strategies[0], DeviceListStrategy::kEnvvar);
  EXPECT_EQ(c.list_strategies[1], DeviceListStrategy::kCdiCri);
  EXPECT_TRUE(c.device_id_index);
  EXPECT_EQ(c.cdi_annotation_prefix, "cdi.example.com/");
  EXPECT_EQ(c.mps_root, "/run/nvidia/mps");
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0], "flags.nvidiaDriverRoot: read, but has no effect here");
}

TEST(NodePluginConfig, DeviceListStrategyAsOneString) {
  EXPECT_EQ(parse("flags: {plugin: {deviceListStrategy: volume-mounts}}").list_strategies,
            std::vector<DeviceListStrategy>{DeviceListStrategy::kVolumeMounts});
  EXPECT_EQ(parse("flags: {plugin: {deviceListStrategy: cdi-annotations}}").list_strategies,
            std::vector<DeviceListStrategy>{DeviceListStrategy::kCdiAnnotations});
}

TEST(NodePluginConfig, TimeSlicingReadmeSample) {
  const NodePluginConfig c = parse(R"(version: v1
sharing:
  timeSlicing:
    renameByDefault: true
    failRequestsGreaterThanOne: true
    resources:
    - name: nvidia.com/gpu
      replicas: 10
    - name: mig-1g.10gb
      replicas: 2
      rename: small
      devices: ["0", GPU-fake-0001]
)");
  EXPECT_EQ(c.mode, ShareMode::kTimeSlice);
  EXPECT_TRUE(c.rename_by_default);
  EXPECT_TRUE(c.fail_requests_greater_than_one);
  ASSERT_EQ(c.replicated.size(), 2u);
  EXPECT_EQ(c.replicated[0].name, "nvidia.com/gpu");
  EXPECT_EQ(c.replicated[0].rename, "nvidia.com/gpu.shared");  // renameByDefault
  EXPECT_EQ(c.replicated[0].replicas, 10);
  EXPECT_TRUE(c.replicated[0].devices.empty());
  EXPECT_EQ(c.replicated[1].name, "nvidia.com/mig-1g.10gb");  // bare names get nvidia.com/
  EXPECT_EQ(c.replicated[1].rename, "nvidia.com/small");
  EXPECT_EQ(c.replicated[1].devices, (std::vector<std::string>{"0", "GPU-fake-0001"}));
}

TEST(NodePluginConfig, MpsFailsRequestsGreaterThanOneUnlessRelaxed) {
  const NodePluginConfig c =
      parse("sharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n");
  EXPECT_EQ(c.mode, ShareMode::kMps);
  EXPECT_TRUE(c.fail_requests_greater_than_one);
  EXPECT_EQ(c.replicated.at(0).rename, "");
  EXPECT_FALSE(parse("sharing:\n  mps:\n    failRequestsGreaterThanOne: false\n    resources:\n"
                     "    - {name: gpu, replicas: 4}\n")
                   .fail_requests_greater_than_one);
  EXPECT_FALSE(parse("sharing:\n  timeSlicing:\n    resources:\n    - {name: gpu, replicas: 4}\n")
                   .fail_requests_greater_than_one);
}

TEST(NodePluginConfig, SlicelabSection) {
  const NodePluginConfig c = parse(R"(version: v1
slicelab:
  mpsRoot: /run/slicelab/mps2
  mpsControl: /opt/bin/nvidia-cuda-mps-control
  cdiKind: example.com/device
  nvmlLibrary: /opt/lib/libnvidia-ml.so.1
  topologyFile: nvswitch-8
  pluginDir: /var/lib/kubelet/plugins-x
  nodeName: n7
  interposer:
    resource: gpu-share
    splitCount: 4
    hostLibrary: /opt/i.so
    containerLibrary: /usr/lib/i.so
    hostPreloadDir: /var/p
    hostRegionRoot: /var/r
    containerRegionDir: /run/r
    preloadViaMount: false
)");
  EXPECT_EQ(c.mode, ShareMode::kInterposer);
  EXPECT_EQ(c.mps_root, "/run/slicelab/mps2");
  EXPECT_EQ(c.mps_control, "/opt/bin/nvidia-cuda-mps-control");
  EXPECT_EQ(c.cdi_kind, "example.com/device");
  EXPECT_EQ(c.nvml_library, "/opt/lib/libnvidia-ml.so.1");
  EXPECT_EQ(c.topology_file, "nvswitch-8");
  EXPECT_EQ(c.plugin_dir, "/var/lib/kubelet/plugins-x");
  EXPECT_EQ(c.node_name, "n7");
  EXPECT_EQ(c.interposer.resource, "nvidia.com/gpu-share");
  EXPECT_EQ(c.interposer.split_count, 4);
  EXPECT_EQ(c.interposer.host_library, "/opt/i.so");
  EXPECT_EQ(c.interposer.container_library, "/usr/lib/i.so");
  EXPECT_EQ(c.interposer.host_preload_dir, "/var/p");
  EXPECT_EQ(c.interposer.host_region_root, "/var/r");
  EXPECT_EQ(c.interposer.container_region_dir, "/run/r");
  EXPECT_FALSE(c.interposer.preload_via_mount);
  // An empty interposer section takes every default.
  const NodePluginConfig d = parse("slicelab:\n  interposer: {}\n");
  EXPECT_EQ(d.mode, ShareMode::kInterposer);
  EXPECT_EQ(d.interposer.split_count, 10);
  EXPECT_TRUE(d.interposer.preload_via_mount);
}

TEST(NodePluginConfig, RefusalsNameFileLineAndColumn) {
  EXPECT_EQ(parse_error("version: v2\n"),
            "p.yaml:1:10: version: unknown version: v2 (the device plugin's config format is v1)");
  EXPECT_EQ(parse_error("version: v1\nsharing:\n  timeSlicing:\n    resources:\n"
                        "    - {name: gpu, replicas: 2}\n  mps:\n    resources:\n"
                        "    - {name: gpu, replicas: 2}\n"),
            "p.yaml:7:5: sharing.mps: give one of timeSlicing and mps (the device plugin would use "
            "mps and drop timeSlicing)");
  EXPECT_EQ(
      parse_error("sharing:\n  timeSlicing:\n    resources:\n    - {name: gpu, replicas: 0}\n"),
      "p.yaml:4:29: sharing.timeSlicing.resources[0].replicas: number of replicas must be >= 2, "
      "found '0' (NVIDIA's replicas.go; to share nothing, leave the resource out)");
  // replicas: 1 as NVIDIA's replicas.go refuses it (before: accepted here, refused by the
  // simulator).
  EXPECT_EQ(
      parse_error("sharing:\n  timeSlicing:\n    resources:\n    - {name: gpu, replicas: 1}\n"),
      "p.yaml:4:29: sharing.timeSlicing.resources[0].replicas: number of replicas must be >= 2, "
      "found '1' (NVIDIA's replicas.go; to share nothing, leave the resource out)");
  EXPECT_EQ(parse_error("slicelab:\n  interposer: {}\nsharing:\n  timeSlicing:\n    resources:\n"
                        "    - {name: gpu, replicas: 2}\n"),
            "p.yaml:5:5: sharing.timeSlicing: slicelab.interposer shares GPUs itself; leave out "
            "the replicas of sharing.timeSlicing (or the interposer)");
  EXPECT_EQ(parse_error("flags:\n  migStrategy: mixed\nsharing:\n  mps:\n    resources:\n"
                        "    - {name: gpu, replicas: 2}\n"),
            "p.yaml:5:5: sharing.mps: sharing using MPS is not supported for MIG devices "
            "(flags.migStrategy is not none)");
  EXPECT_EQ(parse_error("flags:\n  migStrategy: half\n"),
            "p.yaml:2:16: flags.migStrategy: expected none, single or mixed, found 'half'");
  EXPECT_EQ(parse_error("sharing:\n  timeSlicing:\n    resources: []\n"),
            "p.yaml:3:16: sharing.timeSlicing.resources: no resources specified");
  EXPECT_EQ(parse_error("flags:\n  plugin:\n    deviceListStrategy: [envvar, volume]\n"),
            "p.yaml:3:34: flags.plugin.deviceListStrategy: expected envvar, volume-mounts, "
            "cdi-annotations or cdi-cri, found 'volume'");
  EXPECT_EQ(parse_error("flags:\n  plugin:\n    deviceIDStrategy: serial\n"),
            "p.yaml:3:23: flags.plugin.deviceIDStrategy: expected uuid or index, found 'serial'");
  EXPECT_EQ(parse_error("slicelab:\n  cdiKind: gpu\n"),
            "p.yaml:2:12: slicelab.cdiKind: expected a CDI kind vendor/class (slicelab.io/gpu), "
            "found 'gpu'");
  EXPECT_EQ(parse_error("slicelab:\n  interposer:\n    splitCount: 0\n"),
            "p.yaml:3:17: slicelab.interposer.splitCount: expected an integer in 1..1024, "
            "found '0'");
}

TEST(NodePluginConfig, UnknownKeysGetADidYouMean) {
  const std::string top = parse_error("version: v1\nsharng: {}\n");
  EXPECT_NE(top.find("p.yaml:2:1"), std::string::npos) << top;
  EXPECT_NE(top.find("sharing"), std::string::npos) << top;
  const std::string flag = parse_error("flags:\n  plugin:\n    passDeviceSpec: true\n");
  EXPECT_NE(flag.find("p.yaml:3:5"), std::string::npos) << flag;
  EXPECT_NE(flag.find("passDeviceSpecs"), std::string::npos) << flag;
  const std::string own = parse_error("slicelab:\n  interposer:\n    splitcount: 3\n");
  EXPECT_NE(own.find("p.yaml:3:5"), std::string::npos) << own;
  EXPECT_NE(own.find("splitCount"), std::string::npos) << own;
  const std::string res =
      parse_error("sharing:\n  mps:\n    resources:\n    - {name: gpu, replica: 2}\n");
  EXPECT_NE(res.find("p.yaml:4:"), std::string::npos) << res;
  EXPECT_NE(res.find("replicas"), std::string::npos) << res;
}

// Names the kubelet would refuse at registration, and paths that would split into others in
// ld.so.preload or LD_PRELOAD, are refused where they are written (before: accepted and
// advertised, or written into the preload file as two lines).
TEST(NodePluginConfig, ResourceNamesAndContainerPathsFollowTheirRules) {
  EXPECT_EQ(parse_error("sharing:\n  timeSlicing:\n    resources:\n"
                        "    - {name: nvidia.com/g pu, replicas: 2}\n"),
            "p.yaml:4:14: sharing.timeSlicing.resources[0].name: resource name 'nvidia.com/g pu' "
            "is refused: its name part 'g pu' holds a space (only lower-case letters, digits, '-' "
            "and '.' may appear)");
  EXPECT_EQ(parse_error("slicelab:\n  interposer: {resource: example.com/GPU}\n"),
            "p.yaml:2:26: slicelab.interposer.resource: resource name 'example.com/GPU' is "
            "refused: its name part 'GPU' holds 'G' (only lower-case letters, digits, '-' and '.' "
            "may appear)");
  EXPECT_EQ(parse_error("slicelab:\n  interposer: {resource: kubernetes.io/gpu}\n"),
            "p.yaml:2:26: slicelab.interposer.resource: resource name 'kubernetes.io/gpu' is "
            "refused: it is in the kubernetes.io/ namespace, which is Kubernetes' own");
  EXPECT_EQ(parse_error("sharing:\n  mps:\n    resources:\n"
                        "    - {name: gpu, rename: 'a..b', replicas: 2}\n"),
            "p.yaml:4:27: sharing.mps.resources[0].rename: resource name 'nvidia.com/a..b' is "
            "refused: its name part 'a..b' has a part that does not start and end with a "
            "lower-case letter or digit");
  EXPECT_EQ(parse_error("slicelab:\n  interposer:\n    containerLibrary: \"/usr/lib/a.so\\n"
                        "/tmp/evil.so\"\n"),
            "p.yaml:3:23: slicelab.interposer.containerLibrary: expected an absolute path "
            "without control characters (a line break, a tab), found '/usr/lib/a.so\n"
            "/tmp/evil.so'");
  EXPECT_EQ(parse_error("slicelab:\n  interposer:\n    containerLibrary: '/usr/lib/a.so "
                        "/tmp/evil.so'\n"),
            "p.yaml:3:23: slicelab.interposer.containerLibrary: expected an absolute path without "
            "spaces or ':' (ld.so.preload and LD_PRELOAD would read it as several libraries), "
            "found '/usr/lib/a.so /tmp/evil.so'");
  EXPECT_NE(parse_error("slicelab:\n  interposer: {hostRegionRoot: \"/var/lib/r\\t\"}\n")
                .find("without control characters"),
            std::string::npos);
  // What NVIDIA and the kubelet accept still reads.
  const NodePluginConfig ok = parse(
      "sharing:\n  timeSlicing:\n    resources:\n"
      "    - {name: gpu, rename: gpu.shared-1, replicas: 2}\n"
      "slicelab: {}\n");
  ASSERT_EQ(ok.replicated.size(), 1U);
  EXPECT_EQ(ok.replicated[0].rename, "nvidia.com/gpu.shared-1");
}

class NodePluginConfigFile : public slicelab::testing::TempFilesTest {};

TEST_F(NodePluginConfigFile, ReadsTheFileAndAConfigMapHoldingIt) {
  const std::string plain = write("plain.yaml", "version: v1\nflags: {migStrategy: single}\n");
  EXPECT_EQ(read_node_plugin_config(plain).mig, MigStrategy::kSingle);
  EXPECT_EQ(read_node_plugin_config(plain).source, plain);
  const std::string cm = write("cm.yaml", R"(apiVersion: v1
kind: ConfigMap
metadata: {name: plugin-config}
data:
  any: |-
    version: v1
    sharing:
      timeSlicing:
        resources:
        - name: nvidia.com/gpu
          replicas: 3
)");
  const NodePluginConfig c = read_node_plugin_config(cm);
  EXPECT_EQ(c.mode, ShareMode::kTimeSlice);
  EXPECT_EQ(c.replicated.at(0).replicas, 3);
  const std::string bad = write("bad.yaml", "data:\n  any: |-\n    version: v3\n");
  // An error inside a `|` entry names the ConfigMap file's own line and column.
  EXPECT_EQ(message_of([&] { read_node_plugin_config(bad); }),
            bad + ":3:14: version: unknown version: v3 (the device plugin's config format is v1)");
}

TEST_F(NodePluginConfigFile, RefusesWhatIsNotAConfigFile) {
  EXPECT_NE(message_of([&] { read_node_plugin_config((dir_ / "missing.yaml").string()); }),
            "no error");
  EXPECT_NE(message_of([&] { read_node_plugin_config(dir_.string()); }).find("folder"),
            std::string::npos);
}

}  // namespace
}  // namespace slicelab::device_plugin
