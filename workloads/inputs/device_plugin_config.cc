#include "workloads/inputs/device_plugin_config.h"

#include <fmt/format.h>

#include <charconv>
#include <sstream>
#include <utility>

#include "workloads/input_error.h"
#include "workloads/kube/kube_names.h"
#include "workloads/text_file.h"
#include "workloads/yaml_syntax_check.h"

namespace slicelab {
namespace {

// NVIDIA's rule, api/config/v1/replicas.go, func (s *ReplicatedResource) UnmarshalJSON:
//     if s.Replicas < 2 {
//         return fmt.Errorf("number of replicas must be >= 2")
//     }
// (since k8s-device-plugin commit 2f91983, May 2022; before it the check was `<= 0`). So
// `replicas: 1` is refused. NVIDIA sets no upper limit; 48 is MPS's client limit per GPU, past
// which replicas could never all run.
constexpr int64_t kMinReplicas = 2;
constexpr int64_t kMaxReplicas = 48;
// NVIDIA's MaxResourceNameLength (api/config/v1/consts.go): the fully-qualified name's limit.
constexpr size_t kMaxResourceNameLength = 63;
constexpr std::string_view kResourcePrefix = "nvidia.com/";

// The keys NVIDIA's config allows under `flags`, `flags.plugin` and `flags.gfd` (flags.go).
void check_flag_keys(const YamlReader& yaml, const YAML::Node& flags, std::string_view path) {
  yaml.check_keys(flags, path,
                  {"migStrategy", "failOnInitError", "mpsRoot", "nvidiaDriverRoot", "nvidiaDevRoot",
                   "gdrcopyEnabled", "gdsEnabled", "mofedEnabled", "useNodeFeatureAPI",
                   "deviceDiscoveryStrategy", "plugin", "gfd"});
  if (const YAML::Node p = flags["plugin"]; p.IsDefined())
    yaml.check_keys(
        p, join_path(path, "plugin"),
        {"passDeviceSpecs", "deviceListStrategy", "deviceIDStrategy", "cdiAnnotationPrefix",
         "nvidiaCTKPath", "containerDriverRoot", "sharedDevicesAllocationPolicy"});
  if (const YAML::Node g = flags["gfd"]; g.IsDefined())
    yaml.check_keys(g, join_path(path, "gfd"),
                    {"oneshot", "noTimestamp", "sleepInterval", "outputFile", "machineTypeFile"});
}

void read_plugin_flags(const YamlReader& yaml, const YAML::Node& p, const std::string& path,
                       DevicePluginConfig& c) {
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
    c.device_list_strategies.clear();
    for (const auto& [name, at] : names) {
      if (name != "envvar" && name != "volume-mounts" && name != "cdi-annotations" &&
          name != "cdi-cri")
        yaml.fail_expected(at, lp, "envvar, volume-mounts, cdi-annotations or cdi-cri");
      for (const std::string& seen : c.device_list_strategies)
        if (seen == name) yaml.fail(at, lp, fmt::format("'{}' is given twice", name));
      c.device_list_strategies.push_back(name);
    }
  }
  if (const YAML::Node v = p["deviceIDStrategy"]; v.IsDefined()) {
    const std::string ip = join_path(path, "deviceIDStrategy");
    c.device_id_strategy = yaml.string(v, ip);
    if (c.device_id_strategy != "uuid" && c.device_id_strategy != "index")
      yaml.fail_expected(v, ip, "uuid or index");
  }
  if (const YAML::Node v = p["cdiAnnotationPrefix"]; v.IsDefined()) {
    const std::string ap = join_path(path, "cdiAnnotationPrefix");
    c.cdi_annotation_prefix = yaml.string(v, ap);
    if (c.cdi_annotation_prefix->empty() || c.cdi_annotation_prefix->back() != '/')
      yaml.fail_expected(v, ap, "an annotation prefix ending in '/' (cdi.k8s.io/)");
  }
  for (const char* key : {"nvidiaCTKPath", "containerDriverRoot"})
    if (const YAML::Node v = p[key]; v.IsDefined()) {
      yaml.string(v, join_path(path, key));
      c.host_flags.push_back(join_path(path, key));
    }
  if (const YAML::Node v = p["sharedDevicesAllocationPolicy"]; v.IsDefined()) {
    const std::string ap = join_path(path, "sharedDevicesAllocationPolicy");
    c.shared_devices_allocation_policy = yaml.string(v, ap);
    if (c.shared_devices_allocation_policy != "distributed" &&
        c.shared_devices_allocation_policy != "packed")
      yaml.fail_expected(v, ap, "distributed or packed");
  }
}

// flags: command-line settings of the plugin and GFD.
void read_flags(const YamlReader& yaml, const YAML::Node& flags, const std::string& path,
                DevicePluginConfig& c) {
  check_flag_keys(yaml, flags, path);
  if (const YAML::Node m = flags["migStrategy"]; m.IsDefined()) {
    const std::string mp = join_path(path, "migStrategy");
    c.mig_strategy = yaml.string(m, mp);
    if (c.mig_strategy != "none" && c.mig_strategy != "single" && c.mig_strategy != "mixed")
      yaml.fail_expected(m, mp, "none, single or mixed");
    c.mig_strategy_at = yaml.where(m, mp);
  }
  if (const YAML::Node f = flags["failOnInitError"]; f.IsDefined())
    yaml.boolean(f, join_path(path, "failOnInitError"));
  if (const YAML::Node r = flags["mpsRoot"]; r.IsDefined()) {
    const std::string rp = join_path(path, "mpsRoot");
    c.mps_root = yaml.string(r, rp);
    if (c.mps_root->empty() || c.mps_root->front() != '/')
      yaml.fail_expected(r, rp, "an absolute folder path");
  }
  for (const char* key : {"nvidiaDriverRoot", "nvidiaDevRoot", "deviceDiscoveryStrategy"})
    if (const YAML::Node v = flags[key]; v.IsDefined()) {
      yaml.string(v, join_path(path, key));
      c.host_flags.push_back(join_path(path, key));
    }
  for (const char* key : {"gdrcopyEnabled", "gdsEnabled", "mofedEnabled", "useNodeFeatureAPI"})
    if (const YAML::Node v = flags[key]; v.IsDefined() && yaml.boolean(v, join_path(path, key)))
      c.host_flags.push_back(join_path(path, key));
  if (const YAML::Node p = flags["plugin"]; p.IsDefined())
    read_plugin_flags(yaml, p, join_path(path, "plugin"), c);
}

// NVIDIA's ReplicatedDeviceRef: a GPU index, a MIG index "<gpu>:<instance>", or a GPU or MIG UUID.
bool is_device_ref(std::string_view dev) {
  const auto digits = [](std::string_view v) {
    return !v.empty() && v.find_first_not_of("0123456789") == std::string_view::npos;
  };
  const size_t colon = dev.find(':');
  const bool index = colon == std::string_view::npos
                         ? digits(dev)
                         : digits(dev.substr(0, colon)) && digits(dev.substr(colon + 1));
  return index || dev.starts_with("GPU-") || dev.starts_with("MIG-");
}

int read_replicas(const YamlReader& yaml, const YAML::Node& rep, const std::string& path) {
  // An integer below NVIDIA's minimum gets NVIDIA's message; anything else that is not an
  // integer in range, the reader's "expected an integer in 2..48".
  if (rep.IsScalar()) {
    const std::string& text = rep.Scalar();
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && end == text.data() + text.size() && v < kMinReplicas)
      yaml.fail(rep, path,
                fmt::format("number of replicas must be >= {}, found '{}' (NVIDIA's replicas.go; "
                            "to share nothing, leave the resource out)",
                            kMinReplicas, text));
  }
  return static_cast<int>(yaml.integer(rep, path, kMinReplicas, kMaxReplicas));
}

// sharing.timeSlicing or sharing.mps: ReplicatedResources (replicas.go), each resource's keys in
// the order NVIDIA's ReplicatedResource.UnmarshalJSON reads them.
void read_replicated(const YamlReader& yaml, const YAML::Node& node, const std::string& path,
                     DevicePluginConfig& c) {
  yaml.require_map(node, path);
  yaml.check_keys(node, path, {"renameByDefault", "failRequestsGreaterThanOne", "resources"});
  if (const YAML::Node r = node["renameByDefault"]; r.IsDefined())
    c.rename_by_default = yaml.boolean(r, join_path(path, "renameByDefault"));
  if (const YAML::Node f = node["failRequestsGreaterThanOne"]; f.IsDefined())
    c.fail_requests_greater_than_one =
        yaml.boolean(f, join_path(path, "failRequestsGreaterThanOne"));
  const std::string rp = join_path(path, "resources");
  c.resources_path = rp;
  const YAML::Node resources = yaml.required(node, path, "resources");
  yaml.require_seq(resources, rp);
  if (resources.size() == 0) yaml.fail(resources, rp, "no resources specified");
  for (size_t i = 0; i < resources.size(); ++i) {
    const std::string ip = index_path(rp, i);
    const YAML::Node r = resources[i];
    yaml.require_map(r, ip);
    yaml.check_keys(r, ip, {"name", "rename", "devices", "replicas"});
    DevicePluginReplicated rr;
    rr.at = yaml.where(r, ip);
    const std::string np = join_path(ip, "name");
    const YAML::Node name = yaml.required(r, ip, "name");
    rr.name = read_device_plugin_resource_name(yaml, name, np);
    rr.name_at = yaml.where(name, np);
    if (const YAML::Node d = r["devices"]; d.IsDefined()) {
      const std::string dp = join_path(ip, "devices");
      rr.devices_at = yaml.where(d, dp);
      if (!(d.IsScalar() && d.Scalar() == "all")) {
        if (!d.IsSequence()) yaml.fail_expected(d, dp, "all, or a list of GPU indices or UUIDs");
        rr.devices = yaml.string_list(d, dp);
        for (size_t k = 0; k < rr.devices.size(); ++k)
          if (!is_device_ref(rr.devices[k]))
            yaml.fail_expected(d[k], index_path(dp, k),
                               "a GPU index, a MIG index <gpu>:<instance>, or a GPU-… or MIG-… "
                               "UUID");
      }
    }
    rr.replicas = read_replicas(yaml, yaml.required(r, ip, "replicas"), join_path(ip, "replicas"));
    if (const YAML::Node n = r["rename"]; n.IsDefined()) {
      const std::string p = join_path(ip, "rename");
      rr.rename = read_device_plugin_resource_name(yaml, n, p);
      rr.rename_text = n.Scalar();
      rr.rename_at = yaml.where(n, p);
    }
    for (const DevicePluginReplicated& other : c.resources)
      if (other.name == rr.name)
        yaml.fail(name, np, fmt::format("{} is shared twice in {}", rr.name, rp));
    c.resources.push_back(std::move(rr));
  }
}

// A ConfigMap entry is a config document inside a string. When it is a literal block (`|`), its
// lines are the file's from the line after the key on, indented: parsed with that many blank
// lines before it and its indentation restored, its nodes carry the file's own lines and
// columns. Otherwise (a quoted string) lines count from the entry's start, under its own name.
struct Entry {
  YAML::Node root;
  YamlReader reader;
};

Entry parse_entry(const std::string& file, const std::string& text, const YAML::Node& value,
                  const std::string& name) {
  const std::string body = value.Scalar();
  std::vector<std::string> file_lines;
  {
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) file_lines.push_back(l);
  }
  const YAML::Mark m = value.Mark();
  std::string padded;
  bool exact = !m.is_null() && m.line >= 0 && static_cast<size_t>(m.line) < file_lines.size() &&
               m.column >= 0 &&
               static_cast<size_t>(m.column) < file_lines[static_cast<size_t>(m.line)].size() &&
               file_lines[static_cast<size_t>(m.line)][static_cast<size_t>(m.column)] == '|';
  if (exact) {
    const size_t first = static_cast<size_t>(m.line) + 1;
    size_t indent = 0;
    for (size_t l = first; l < file_lines.size(); ++l) {
      const size_t k = file_lines[l].find_first_not_of(' ');
      if (k == std::string::npos) continue;
      indent = k;
      break;
    }
    padded.assign(first, '\n');
    std::istringstream in(body);
    size_t l = first;
    for (std::string line; std::getline(in, line); ++l) {
      const std::string restored = line.empty() ? line : std::string(indent, ' ') + line;
      if (l >= file_lines.size() ||
          file_lines[l].substr(0, file_lines[l].find_last_not_of(' ') + 1) !=
              restored.substr(0, restored.find_last_not_of(' ') + 1)) {
        exact = false;
        break;
      }
      padded += restored + "\n";
    }
  }
  const std::string where = exact ? file : fmt::format("{} (data.{})", file, name);
  const std::string& doc = exact ? padded : body;
  try {
    check_yaml_syntax(doc, where);
    return {YAML::Load(doc), YamlReader(where)};
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}:{}:{}: data.{}: invalid YAML: {}", where, e.mark.line + 1,
                                 e.mark.column + 1, name, e.msg));
  }
}

[[noreturn]] void refuse_entry_name(const DevicePluginConfigEntry& entry, const std::string& what) {
  if (entry.named_by) entry.named_by->fail(entry.name_node, entry.name_path, what);
  throw InputError(what);
}

}  // namespace

void refuse_device_plugin_value(std::string_view at, std::string_view what) {
  throw InputError(fmt::format("{}: {}", at, what));
}

std::string read_device_plugin_resource_name(const YamlReader& yaml, const YAML::Node& node,
                                             std::string_view path) {
  std::string name = yaml.string(node, path);
  if (name.empty()) yaml.fail(node, path, "needs a resource name");
  // NVIDIA's NewResourceName qualifies a bare name with its prefix (resources.go).
  if (name.find('/') == std::string::npos) name = std::string(kResourcePrefix) + name;
  if (name.size() > kMaxResourceNameLength)
    yaml.fail(node, path,
              fmt::format("fully-qualified resource name must be {} characters or less: {}",
                          kMaxResourceNameLength, name));
  const std::string_view part = std::string_view(name).substr(name.find('/') + 1);
  if (const auto e = dns_subdomain_error(part))
    yaml.fail(node, path,
              fmt::format("resource name '{}' is refused: its name part '{}' {}", name, part, *e));
  if (const auto e = extended_resource_name_error(name))
    yaml.fail(node, path, fmt::format("resource name '{}' is refused: it {}", name, *e));
  return name;
}

DevicePluginConfig read_device_plugin_config(const YamlReader& yaml, const YAML::Node& node,
                                             std::string_view path, std::string source) {
  yaml.require_map(node, path);
  yaml.check_keys(node, path, {"version", "flags", "resources", "sharing", "imex", "slicelab"});
  DevicePluginConfig c;
  c.source = std::move(source);
  // config.go: an empty version means v1; any other is refused ("unknown version: %v").
  if (const YAML::Node v = node["version"]; v.IsDefined()) {
    const std::string vp = join_path(path, "version");
    if (const std::string version = yaml.string(v, vp); version != "v1")
      yaml.fail(
          v, vp,
          fmt::format("unknown version: {} (the device plugin's config format is v1)", version));
  }
  if (const YAML::Node f = node["flags"]; f.IsDefined())
    read_flags(yaml, f, join_path(path, "flags"), c);
  if (const YAML::Node r = node["resources"]; r.IsDefined())
    c.resources_at = yaml.where(r, join_path(path, "resources"));
  if (const YAML::Node i = node["imex"]; i.IsDefined()) {
    yaml.check_keys(i, join_path(path, "imex"), {"channelIDs", "required"});
    c.imex_at = yaml.where(i, join_path(path, "imex"));
  }
  if (const YAML::Node s = node["slicelab"]; s.IsDefined()) {
    c.slicelab_at = yaml.where(s, join_path(path, "slicelab"));
    c.slicelab = DevicePluginConfig::Section{yaml, s, join_path(path, "slicelab")};
  }
  const YAML::Node sharing = node["sharing"];
  if (!sharing.IsDefined()) return c;
  const std::string sp = join_path(path, "sharing");
  yaml.require_map(sharing, sp);
  yaml.check_keys(sharing, sp, {"timeSlicing", "mps"});
  const YAML::Node ts = sharing["timeSlicing"];
  const YAML::Node mps = sharing["mps"];
  if (ts.IsDefined() && mps.IsDefined())
    yaml.fail(mps, join_path(sp, "mps"),
              "give one of timeSlicing and mps (the device plugin would use mps and drop "
              "timeSlicing)");
  const YAML::Node used = mps.IsDefined() ? mps : ts;
  if (!used.IsDefined()) return c;
  const std::string up = join_path(sp, mps.IsDefined() ? "mps" : "timeSlicing");
  c.strategy = mps.IsDefined() ? "mps" : "timeSlicing";
  c.strategy_at = yaml.where(used, up);
  // config.go keeps MPS's historical behaviour (one replica per container) unless relaxed.
  c.fail_requests_greater_than_one = mps.IsDefined();
  read_replicated(yaml, used, up, c);
  // NVIDIA's plugin refuses to start on this config whatever the node (internal/plugin/mps.go).
  if (c.strategy == "mps" && c.mig_strategy != "none")
    yaml.fail(used, up,
              "sharing using MPS is not supported for MIG devices (flags.migStrategy is not none)");
  return c;
}

DevicePluginConfig parse_device_plugin_config_file(const std::string& text, const std::string& file,
                                                   const std::string& source,
                                                   const DevicePluginConfigEntry& entry) try {
  const YAML::Node root = load_yaml_text(text, file);
  const YamlReader yaml(file);
  yaml.require_map(root, "");
  const bool config_map = root["data"].IsDefined() || root["kind"].IsDefined();
  if (!config_map) {
    if (entry.name)
      refuse_entry_name(
          entry, fmt::format("only applies to a ConfigMap; {} is the config itself", source));
    return read_device_plugin_config(yaml, root, "", source);
  }
  yaml.check_keys(root, "", {"apiVersion", "kind", "metadata", "data", "immutable"});
  if (const YAML::Node k = root["kind"]; k.IsDefined() && yaml.string(k, "kind") != "ConfigMap")
    yaml.fail_expected(k, "kind", "ConfigMap (or the device plugin's config itself)");
  const YAML::Node data = yaml.required(root, "", "data");
  yaml.require_map(data, "data");
  if (data.size() == 0) yaml.fail(data, "data", "needs a config");
  std::vector<std::string> names;
  for (const auto& kv : data) names.push_back(kv.first.Scalar());
  const std::string known = fmt::format("{}", fmt::join(names, ", "));
  std::string name;
  if (entry.name) {
    name = *entry.name;
    if (!data[name].IsDefined())
      refuse_entry_name(
          entry, fmt::format("no config '{}' in {}'s data (known: {})", name, source, known));
  } else if (names.size() == 1) {
    name = names.front();
  } else {
    yaml.fail(data, "data",
              fmt::format("holds {} configs ({}); name one with config_name in the scenario (the "
                          "node plugin reads a ConfigMap of one config)",
                          names.size(), known));
  }
  const YAML::Node value = data[name];
  if (!value.IsScalar())
    yaml.fail_expected(value, join_path("data", name), "the config as a string (a `|` block)");
  Entry e = parse_entry(file, text, value, name);
  try {
    return read_device_plugin_config(e.reader, e.root, "", fmt::format("{} data.{}", source, name));
  } catch (const YAML::Exception& ex) {
    throw located_yaml_error(e.reader.file(), ex);
  }
} catch (const YAML::Exception& e) {
  throw located_yaml_error(file, e);
}

DevicePluginConfig read_device_plugin_config_file(const std::string& file,
                                                  const std::string& source,
                                                  const DevicePluginConfigEntry& entry) {
  return parse_device_plugin_config_file(read_text_file(file, kMaxConfigYamlBytes), file, source,
                                         entry);
}

}  // namespace slicelab
