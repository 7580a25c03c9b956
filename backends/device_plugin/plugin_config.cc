#include "backends/device_plugin/plugin_config.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <string>

#include "workloads/input_error.h"
#include "workloads/inputs/device_plugin_config.h"
#include "workloads/text_file.h"
#include "workloads/yaml_reader.h"

namespace slicelab::device_plugin {
namespace {

constexpr int64_t kMaxSplitCount = 1024;

void read_interposer(const YamlReader& yaml, const YAML::Node& node, const std::string& path,
                     InterposerShareConfig& s) {
  yaml.require_map(node, path);
  yaml.check_keys(node, path,
                  {"resource", "splitCount", "hostLibrary", "containerLibrary", "hostPreloadDir",
                   "hostRegionRoot", "containerRegionDir", "preloadViaMount"});
  if (const YAML::Node r = node["resource"]; r.IsDefined())
    s.resource = read_device_plugin_resource_name(yaml, r, join_path(path, "resource"));
  if (auto v = yaml.opt_integer(node, path, "splitCount", 1, kMaxSplitCount))
    s.split_count = static_cast<int>(*v);
  // Paths end up in mounts, in ld.so.preload (whose entries whitespace separates) and in
  // LD_PRELOAD (spaces and colons): a control character or, in the library's container path, a
  // separator would split one path into others the config never named.
  const auto absolute = [&](const char* key, std::string& out, std::string_view separators = {}) {
    const YAML::Node v = node[key];
    if (!v.IsDefined()) return;
    const std::string kp = join_path(path, key);
    out = yaml.string(v, kp);
    if (out.empty() || out.front() != '/') yaml.fail_expected(v, kp, "an absolute path");
    for (const char c : out) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        yaml.fail_expected(v, kp,
                           "an absolute path without control characters (a line break, a tab)");
      if (separators.find(c) != std::string_view::npos)
        yaml.fail_expected(v, kp,
                           "an absolute path without spaces or ':' (ld.so.preload and LD_PRELOAD "
                           "would read it as several libraries)");
    }
  };
  absolute("hostLibrary", s.host_library);
  absolute("containerLibrary", s.container_library, " :");
  absolute("hostPreloadDir", s.host_preload_dir);
  absolute("hostRegionRoot", s.host_region_root);
  absolute("containerRegionDir", s.container_region_dir);
  if (const YAML::Node v = node["preloadViaMount"]; v.IsDefined())
    s.preload_via_mount = yaml.boolean(v, join_path(path, "preloadViaMount"));
}

void read_slicelab(const YamlReader& yaml, const YAML::Node& node, const std::string& path,
                   NodePluginConfig& c) {
  yaml.require_map(node, path);
  yaml.check_keys(node, path,
                  {"interposer", "mpsRoot", "mpsControl", "cdiKind", "nvmlLibrary", "topologyFile",
                   "pluginDir", "nodeName"});
  if (const YAML::Node i = node["interposer"]; i.IsDefined()) {
    read_interposer(yaml, i, join_path(path, "interposer"), c.interposer);
    c.mode = ShareMode::kInterposer;
  }
  const auto text = [&](const char* key, std::string& out, bool absolute) {
    const YAML::Node v = node[key];
    if (!v.IsDefined()) return;
    const std::string kp = join_path(path, key);
    out = yaml.string(v, kp);
    if (out.empty()) yaml.fail(v, kp, "needs a value");
    if (absolute && out.front() != '/') yaml.fail_expected(v, kp, "an absolute path");
  };
  text("mpsRoot", c.mps_root, true);
  text("mpsControl", c.mps_control, false);
  text("nvmlLibrary", c.nvml_library, false);
  text("topologyFile", c.topology_file, false);
  text("pluginDir", c.plugin_dir, true);
  text("nodeName", c.node_name, false);
  if (const YAML::Node k = node["cdiKind"]; k.IsDefined()) {
    const std::string kp = join_path(path, "cdiKind");
    c.cdi_kind = yaml.string(k, kp);
    // CDI's kind is "vendor/class" (cdi.k8s.io spec: ParseQualifier).
    const size_t slash = c.cdi_kind.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == c.cdi_kind.size() ||
        c.cdi_kind.find('/', slash + 1) != std::string::npos)
      yaml.fail_expected(k, kp, "a CDI kind vendor/class (slicelab.io/gpu)");
  }
}

// The plugin's translation of NVIDIA's format: what it advertises and how Allocate answers.
NodePluginConfig translate(const DevicePluginConfig& d, std::string_view source) {
  NodePluginConfig c;
  c.source = std::string(source);
  c.mig = d.mig_strategy == "single"  ? MigStrategy::kSingle
          : d.mig_strategy == "mixed" ? MigStrategy::kMixed
                                      : MigStrategy::kNone;
  c.list_strategies.clear();
  for (const std::string& s : d.device_list_strategies)
    c.list_strategies.push_back(s == "envvar"            ? DeviceListStrategy::kEnvvar
                                : s == "volume-mounts"   ? DeviceListStrategy::kVolumeMounts
                                : s == "cdi-annotations" ? DeviceListStrategy::kCdiAnnotations
                                                         : DeviceListStrategy::kCdiCri);
  c.pass_device_specs = d.pass_device_specs;
  c.device_id_index = d.device_id_strategy == "index";
  if (d.cdi_annotation_prefix) c.cdi_annotation_prefix = *d.cdi_annotation_prefix;
  if (d.mps_root) c.mps_root = *d.mps_root;
  for (const std::string& key : d.host_flags)
    c.warnings.push_back(fmt::format("{}: read, but has no effect here", key));
  if (d.shared_devices_allocation_policy == "packed")
    c.warnings.push_back(
        "flags.plugin.sharedDevicesAllocationPolicy: packed is read, but replicas are preferred "
        "distributed (NVIDIA's default)");
  // NVIDIA ignores both with a warning (DisableResourceNamingInConfig; IMEX channels).
  if (!d.resources_at.empty()) c.warnings.push_back("resources: read, but has no effect here");
  if (!d.imex_at.empty()) c.warnings.push_back("imex: read, but has no effect here");
  if (d.slicelab) read_slicelab(d.slicelab->reader, d.slicelab->node, d.slicelab->path, c);
  if (d.strategy.empty()) return c;
  if (c.mode == ShareMode::kInterposer)
    refuse_device_plugin_value(d.strategy_at,
                               "slicelab.interposer shares GPUs itself; leave out the replicas of "
                               "sharing." +
                                   d.strategy + " (or the interposer)");
  c.mode = d.strategy == "mps" ? ShareMode::kMps : ShareMode::kTimeSlice;
  c.rename_by_default = d.rename_by_default;
  c.fail_requests_greater_than_one = d.fail_requests_greater_than_one;
  for (const DevicePluginReplicated& r : d.resources) {
    ReplicatedResource rr;
    rr.name = r.name;
    rr.rename = !r.rename.empty() ? r.rename : d.rename_by_default ? r.name + ".shared" : "";
    rr.replicas = r.replicas;
    rr.devices = r.devices;
    c.replicated.push_back(std::move(rr));
  }
  return c;
}

NodePluginConfig parse_checked(const std::string& text, const std::string& where,
                               std::string_view source) {
  return translate(parse_device_plugin_config_file(text, where, where), source);
}

}  // namespace

NodePluginConfig parse_node_plugin_config(std::string_view text, std::string_view source) {
  return parse_checked(std::string(text), std::string(source), source);
}

NodePluginConfig read_node_plugin_config(std::string_view path) {
  const std::string p(path);
  return parse_checked(read_text_file(p, kMaxConfigYamlBytes), p, path);
}

}  // namespace slicelab::device_plugin
