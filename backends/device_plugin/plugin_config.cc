#include "backends/device_plugin/plugin_config.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <string>

#include "sim/sharing/device_plugin_config.h"
#include "workloads/input_error.h"
#include "workloads/text_file.h"
#include "workloads/yaml_reader.h"
#include "workloads/yaml_syntax_check.h"

namespace slicelab::device_plugin {
namespace {

// MPS serves at most 48 clients per GPU; more replicas than that could never all run.
constexpr int64_t kMaxReplicas = 48;
constexpr int64_t kMaxSplitCount = 1024;

void read_plugin_flags(const YamlReader& yaml, const YAML::Node& p, const std::string& path,
                       NodePluginConfig& c) {
  if (const YAML::Node v = p["passDeviceSpecs"]; v.IsDefined())
    c.pass_device_specs = yaml.boolean(v, join_path(path, "passDeviceSpecs"));
  if (const YAML::Node v = p["deviceListStrategy"]; v.IsDefined()) {
    const std::string lp = join_path(path, "deviceListStrategy");
    // NVIDIA's deviceListStrategyFlag: one string or a list of them.
    std::vector<std::pair<std::string, YAML::Node>> names;
    if (v.IsSequence()) {
      if (v.size() == 0) yaml.fail(v, lp, "needs at least one strategy");
      for (size_t i = 0; i < v.size(); ++i)
        names.emplace_back(yaml.string(v[i], index_path(lp, i)), v[i]);
    } else {
      names.emplace_back(yaml.string(v, lp), v);
    }
    c.list_strategies.clear();
    for (const auto& [name, at] : names) {
      DeviceListStrategy s{};
      if (name == "envvar") {
        s = DeviceListStrategy::kEnvvar;
      } else if (name == "volume-mounts") {
        s = DeviceListStrategy::kVolumeMounts;
      } else if (name == "cdi-annotations") {
        s = DeviceListStrategy::kCdiAnnotations;
      } else if (name == "cdi-cri") {
        s = DeviceListStrategy::kCdiCri;
      } else {
        yaml.fail_expected(at, lp, "envvar, volume-mounts, cdi-annotations or cdi-cri");
      }
      for (DeviceListStrategy seen : c.list_strategies)
        if (seen == s) yaml.fail(at, lp, fmt::format("'{}' is given twice", name));
      c.list_strategies.push_back(s);
    }
  }
  if (const YAML::Node v = p["deviceIDStrategy"]; v.IsDefined()) {
    const std::string ip = join_path(path, "deviceIDStrategy");
    const std::string s = yaml.string(v, ip);
    if (s != "uuid" && s != "index") yaml.fail_expected(v, ip, "uuid or index");
    c.device_id_index = s == "index";
  }
  if (const YAML::Node v = p["cdiAnnotationPrefix"]; v.IsDefined()) {
    const std::string ap = join_path(path, "cdiAnnotationPrefix");
    c.cdi_annotation_prefix = yaml.string(v, ap);
    if (c.cdi_annotation_prefix.empty() || c.cdi_annotation_prefix.back() != '/')
      yaml.fail_expected(v, ap, "an annotation prefix ending in '/' (cdi.k8s.io/)");
  }
  for (const char* key : {"nvidiaCTKPath", "containerDriverRoot"})
    if (const YAML::Node v = p[key]; v.IsDefined()) {
      yaml.string(v, join_path(path, key));
      c.warnings.push_back(fmt::format("{}: read, but has no effect here", join_path(path, key)));
    }
  if (const YAML::Node v = p["sharedDevicesAllocationPolicy"]; v.IsDefined()) {
    const std::string ap = join_path(path, "sharedDevicesAllocationPolicy");
    const std::string s = yaml.string(v, ap);
    if (s != "distributed" && s != "packed") yaml.fail_expected(v, ap, "distributed or packed");
    if (s == "packed")
      c.warnings.push_back(fmt::format(
          "{}: packed is read, but replicas are preferred distributed (NVIDIA's default)", ap));
  }
}

void read_flags(const YamlReader& yaml, const YAML::Node& flags, const std::string& path,
                NodePluginConfig& c) {
  // Every key of flags, flags.plugin and flags.gfd spelled as NVIDIA's format has it.
  check_device_plugin_flag_keys(yaml, flags, path);
  if (const YAML::Node m = flags["migStrategy"]; m.IsDefined()) {
    const std::string mp = join_path(path, "migStrategy");
    const std::string s = yaml.string(m, mp);
    if (s == "none") {
      c.mig = MigStrategy::kNone;
    } else if (s == "single") {
      c.mig = MigStrategy::kSingle;
    } else if (s == "mixed") {
      c.mig = MigStrategy::kMixed;
    } else {
      yaml.fail_expected(m, mp, "none, single or mixed");
    }
  }
  // A plugin that cannot start reports it either way; the flag only picks exit or idle.
  if (const YAML::Node f = flags["failOnInitError"]; f.IsDefined())
    yaml.boolean(f, join_path(path, "failOnInitError"));
  if (const YAML::Node r = flags["mpsRoot"]; r.IsDefined()) {
    const std::string rp = join_path(path, "mpsRoot");
    c.mps_root = yaml.string(r, rp);
    if (c.mps_root.empty() || c.mps_root.front() != '/')
      yaml.fail_expected(r, rp, "an absolute folder path");
  }
  for (const char* key : {"nvidiaDriverRoot", "nvidiaDevRoot", "deviceDiscoveryStrategy"})
    if (const YAML::Node v = flags[key]; v.IsDefined()) {
      yaml.string(v, join_path(path, key));
      c.warnings.push_back(fmt::format("{}: read, but has no effect here", join_path(path, key)));
    }
  for (const char* key : {"gdrcopyEnabled", "gdsEnabled", "mofedEnabled", "useNodeFeatureAPI"})
    if (const YAML::Node v = flags[key]; v.IsDefined() && yaml.boolean(v, join_path(path, key)))
      c.warnings.push_back(fmt::format("{}: read, but has no effect here", join_path(path, key)));
  if (const YAML::Node p = flags["plugin"]; p.IsDefined())
    read_plugin_flags(yaml, p, join_path(path, "plugin"), c);
}

// sharing.timeSlicing or sharing.mps: NVIDIA's ReplicatedResources (replicas.go).
void read_replicated(const YamlReader& yaml, const YAML::Node& node, const std::string& path,
                     NodePluginConfig& c) {
  yaml.require_map(node, path);
  yaml.check_keys(node, path, {"renameByDefault", "failRequestsGreaterThanOne", "resources"});
  if (const YAML::Node r = node["renameByDefault"]; r.IsDefined())
    c.rename_by_default = yaml.boolean(r, join_path(path, "renameByDefault"));
  if (const YAML::Node f = node["failRequestsGreaterThanOne"]; f.IsDefined())
    c.fail_requests_greater_than_one =
        yaml.boolean(f, join_path(path, "failRequestsGreaterThanOne"));
  const std::string rp = join_path(path, "resources");
  const YAML::Node resources = yaml.required(node, path, "resources");
  yaml.require_seq(resources, rp);
  if (resources.size() == 0) yaml.fail(resources, rp, "no resources specified");
  for (size_t i = 0; i < resources.size(); ++i) {
    const std::string ip = index_path(rp, i);
    const YAML::Node r = resources[i];
    yaml.require_map(r, ip);
    yaml.check_keys(r, ip, {"name", "rename", "devices", "replicas"});
    ReplicatedResource rr;
    rr.name =
        read_device_plugin_resource_name(yaml, yaml.required(r, ip, "name"), join_path(ip, "name"));
    const YAML::Node rep = yaml.required(r, ip, "replicas");
    rr.replicas = static_cast<int>(yaml.integer(rep, join_path(ip, "replicas"), 1, kMaxReplicas));
    if (const YAML::Node n = r["rename"]; n.IsDefined())
      rr.rename = read_device_plugin_resource_name(yaml, n, join_path(ip, "rename"));
    else if (c.rename_by_default)
      rr.rename = rr.name + ".shared";
    if (const YAML::Node d = r["devices"]; d.IsDefined()) {
      const std::string dp = join_path(ip, "devices");
      if (!(d.IsScalar() && d.Scalar() == "all")) {
        if (!d.IsSequence()) yaml.fail_expected(d, dp, "all, or a list of GPU indices or UUIDs");
        rr.devices = yaml.string_list(d, dp);
        for (size_t k = 0; k < rr.devices.size(); ++k) {
          const std::string& dev = rr.devices[k];
          // NVIDIA's ReplicatedDeviceRef: a GPU index, a MIG index "<gpu>:<instance>", a UUID.
          const auto digits = [](std::string_view v) {
            return !v.empty() && v.find_first_not_of("0123456789") == std::string_view::npos;
          };
          const size_t colon = dev.find(':');
          const bool index = colon == std::string::npos
                                 ? digits(dev)
                                 : digits(std::string_view(dev).substr(0, colon)) &&
                                       digits(std::string_view(dev).substr(colon + 1));
          if (!index && !dev.starts_with("GPU-") && !dev.starts_with("MIG-"))
            yaml.fail_expected(d[k], index_path(dp, k),
                               "a GPU index, a MIG index <gpu>:<instance>, or a GPU-… or MIG-… "
                               "UUID");
        }
      }
    }
    for (const ReplicatedResource& other : c.replicated)
      if (other.name == rr.name)
        yaml.fail(r["name"], join_path(ip, "name"),
                  fmt::format("{} is shared twice in {}", rr.name, rp));
    c.replicated.push_back(std::move(rr));
  }
}

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

NodePluginConfig read_document(const YamlReader& yaml, const YAML::Node& root,
                               std::string_view source) {
  NodePluginConfig c;
  c.source = std::string(source);
  yaml.require_map(root, "");
  yaml.check_keys(root, "", {"version", "flags", "resources", "sharing", "imex", "slicelab"});
  // config.go: an empty version means v1; any other is refused ("unknown version").
  if (const YAML::Node v = root["version"]; v.IsDefined())
    if (const std::string version = yaml.string(v, "version"); version != "v1")
      yaml.fail(v, "version", fmt::format("unknown version: {} (the format is v1)", version));
  if (const YAML::Node f = root["flags"]; f.IsDefined()) read_flags(yaml, f, "flags", c);
  // NVIDIA ignores both with a warning (DisableResourceNamingInConfig; IMEX channels).
  for (const char* key : {"resources", "imex"})
    if (root[key].IsDefined())
      c.warnings.push_back(fmt::format("{}: read, but has no effect here", key));
  if (const YAML::Node s = root["slicelab"]; s.IsDefined()) read_slicelab(yaml, s, "slicelab", c);
  const YAML::Node sharing = root["sharing"];
  if (!sharing.IsDefined()) return c;
  yaml.require_map(sharing, "sharing");
  yaml.check_keys(sharing, "sharing", {"timeSlicing", "mps"});
  const YAML::Node ts = sharing["timeSlicing"];
  const YAML::Node mps = sharing["mps"];
  if (ts.IsDefined() && mps.IsDefined())
    yaml.fail(mps, "sharing.mps", "give one of timeSlicing and mps, not both");
  const YAML::Node used = mps.IsDefined() ? mps : ts;
  if (!used.IsDefined()) return c;
  const std::string up = mps.IsDefined() ? "sharing.mps" : "sharing.timeSlicing";
  if (c.mode == ShareMode::kInterposer)
    yaml.fail(used, up,
              "slicelab.interposer shares GPUs itself; leave out the replicas of " + up +
                  " (or the interposer)");
  // config.go keeps MPS's historical behaviour (one replica per container) unless relaxed.
  c.fail_requests_greater_than_one = mps.IsDefined();
  read_replicated(yaml, used, up, c);
  c.mode = mps.IsDefined() ? ShareMode::kMps : ShareMode::kTimeSlice;
  if (c.mode == ShareMode::kMps && c.mig != MigStrategy::kNone)
    yaml.fail(used, up,
              "sharing using MPS is not supported for MIG devices (flags.migStrategy is not none)");
  return c;
}

NodePluginConfig parse_checked(const std::string& text, const std::string& where,
                               std::string_view source) {
  check_yaml_syntax(text, where);
  try {
    const YAML::Node root = YAML::Load(text);
    const YamlReader yaml(where);
    // A ConfigMap holding the config under data: (the plugin's usual deployment).
    if (root.IsMap() && (root["data"].IsDefined() || root["kind"].IsDefined()) &&
        !root["version"].IsDefined() && !root["sharing"].IsDefined()) {
      yaml.check_keys(root, "", {"apiVersion", "kind", "metadata", "data", "immutable"});
      if (const YAML::Node k = root["kind"]; k.IsDefined() && yaml.string(k, "kind") != "ConfigMap")
        yaml.fail_expected(k, "kind", "ConfigMap (or the device plugin's config itself)");
      const YAML::Node data = yaml.required(root, "", "data");
      yaml.require_map(data, "data");
      if (data.size() != 1)
        yaml.fail(data, "data",
                  fmt::format("holds {} configs; the node plugin reads one", data.size()));
      const auto entry = data.begin();
      const std::string name = entry->first.Scalar();
      const std::string ep = join_path("data", name);
      if (!entry->second.IsScalar())
        yaml.fail_expected(entry->second, ep, "the config as a string (a `|` block)");
      // Lines and columns inside the entry count from its own start.
      return parse_checked(entry->second.Scalar(), fmt::format("{} ({})", where, ep), source);
    }
    return read_document(yaml, root, source);
  } catch (const YAML::Exception& e) {
    throw located_yaml_error(where, e);
  }
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
