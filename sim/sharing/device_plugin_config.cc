#include "sim/sharing/device_plugin_config.h"

#include <fmt/format.h>

#include <filesystem>
#include <sstream>
#include <vector>

#include "workloads/input_error.h"
#include "workloads/kube/kube_names.h"
#include "workloads/text_file.h"
#include "workloads/yaml_syntax_check.h"

namespace slicelab {
namespace {

// The plugin needs at least 2 replicas (replicas.go: "number of replicas must be >= 2"); the
// simulator's own limit on tenants of one GPU is the MPS client limit, 48.
constexpr int64_t kMinReplicas = 2;
constexpr int64_t kMaxReplicas = 48;
constexpr std::string_view kGpuResource = "nvidia.com/gpu";
// NVIDIA's MaxResourceNameLength (api/config/v1/consts.go): the fully-qualified name's limit.
constexpr size_t kMaxResourceNameLength = 63;
constexpr std::string_view kResourcePrefix = "nvidia.com/";

[[noreturn]] void not_supported(const YamlReader& yaml, const YAML::Node& at, std::string_view path,
                                std::string_view why) {
  yaml.fail(at, path, fmt::format("not supported yet: {}", why));
}

// flags: command-line settings of the plugin and GFD. None changes how GPUs are shared except
// migStrategy, so the rest are checked for spelling only.
void read_flags(const YamlReader& yaml, const YAML::Node& flags, const std::string& path) {
  check_device_plugin_flag_keys(yaml, flags, path);
  if (const YAML::Node m = flags["migStrategy"]; m.IsDefined()) {
    const std::string mp = join_path(path, "migStrategy");
    const std::string s = yaml.string(m, mp);
    if (s == "single" || s == "mixed")
      not_supported(yaml, m, mp,
                    fmt::format("migStrategy '{}' (sharing MIG devices through the device plugin); "
                                "for MIG write `sharing: {{mode: mig, ...}}` (docs/mig.md)",
                                s));
    if (s != "none") yaml.fail_expected(m, mp, "none, single or mixed");
  }
  if (const YAML::Node f = flags["failOnInitError"]; f.IsDefined())
    yaml.boolean(f, join_path(path, "failOnInitError"));
}

// sharing.timeSlicing or sharing.mps: ReplicatedResources in the plugin's replicas.go.
void read_replicated(const YamlReader& yaml, const YAML::Node& node, const std::string& path,
                     DevicePluginSettings& s) {
  yaml.check_keys(node, path, {"renameByDefault", "failRequestsGreaterThanOne", "resources"});
  bool rename = false;
  if (const YAML::Node r = node["renameByDefault"]; r.IsDefined())
    rename = yaml.boolean(r, join_path(path, "renameByDefault"));
  if (const YAML::Node f = node["failRequestsGreaterThanOne"]; f.IsDefined())
    s.fail_requests_greater_than_one =
        yaml.boolean(f, join_path(path, "failRequestsGreaterThanOne"));
  const std::string rp = join_path(path, "resources");
  const YAML::Node resources = yaml.required(node, path, "resources");
  yaml.require_seq(resources, rp);
  if (resources.size() == 0)
    yaml.fail(resources, rp, "needs one resource (no resources specified)");
  for (size_t i = 0; i < resources.size(); ++i) {
    const std::string ip = index_path(rp, i);
    const YAML::Node r = resources[i];
    yaml.check_keys(r, ip, {"name", "rename", "devices", "replicas"});
    const std::string np = join_path(ip, "name");
    const std::string name =
        read_device_plugin_resource_name(yaml, yaml.required(r, ip, "name"), np);
    if (name.starts_with("nvidia.com/mig-"))
      not_supported(yaml, r["name"], np,
                    fmt::format("sharing MIG devices ({}); the simulator time-slices or MPS-shares "
                                "whole GPUs (for MIG write `sharing: {{mode: mig, ...}}`)",
                                name));
    if (name != kGpuResource) yaml.fail_expected(r["name"], np, "nvidia.com/gpu");
    const std::string rpp = join_path(ip, "replicas");
    const YAML::Node rep = yaml.required(r, ip, "replicas");
    if (rep.IsScalar() && rep.Scalar() == "1")
      yaml.fail(
          rep, rpp,
          "the device plugin needs at least 2 replicas (\"number of replicas must be >= 2\"); "
          "leave the resource out to share nothing");
    const int replicas = static_cast<int>(yaml.integer(rep, rpp, kMinReplicas, kMaxReplicas));
    if (const YAML::Node d = r["devices"]; d.IsDefined()) {
      const std::string dp = join_path(ip, "devices");
      if (!(d.IsScalar() && d.Scalar() == "all"))
        not_supported(yaml, d, dp,
                      "devices other than 'all' (sharing a subset of the GPUs); the device "
                      "plugin itself ignores it today and shares every GPU: write devices: all "
                      "or leave it out");
    }
    const std::string advertised = rename ? name + ".shared" : name;
    if (const YAML::Node n = r["rename"]; n.IsDefined()) {
      const std::string p = join_path(ip, "rename");
      if (read_device_plugin_resource_name(yaml, n, p) != advertised)
        not_supported(yaml, n, p,
                      fmt::format("rename to '{}' (the device plugin ignores it too and warns); "
                                  "renameByDefault: true advertises {}.shared",
                                  n.Scalar(), name));
    }
    if (i > 0)
      not_supported(yaml, r, ip,
                    fmt::format("{} resources in {} (the simulator shares one resource, "
                                "nvidia.com/gpu, alike on every GPU)",
                                resources.size(), rp));
    s.resource = name;
    s.advertised = advertised;
    s.replicas = replicas;
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

// A file that is the plugin's config, or a ConfigMap holding configs under `data`.
DevicePluginSettings read_config_file(const std::string& file, const std::string& source,
                                      const std::optional<std::string>& entry_name,
                                      const YAML::Node& name_node, const YamlReader& scenario,
                                      const std::string& name_path) try {
  const std::string text = read_text_file(file, kMaxConfigYamlBytes);
  const YAML::Node root = load_yaml_file(file);
  const YamlReader yaml(file);
  yaml.require_map(root, "");
  const bool config_map = root["data"].IsDefined() || root["kind"].IsDefined();
  if (!config_map) {
    if (entry_name)
      scenario.fail(name_node, name_path,
                    fmt::format("only applies to a ConfigMap; {} is the config itself", source));
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
  if (entry_name) {
    name = *entry_name;
    if (!data[name].IsDefined())
      scenario.fail(name_node, name_path,
                    fmt::format("no config '{}' in {}'s data (known: {})", name, source, known));
  } else if (names.size() == 1) {
    name = names.front();
  } else {
    yaml.fail(data, "data",
              fmt::format("holds {} configs ({}); name one with config_name in the scenario",
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

}  // namespace

bool is_device_plugin_sharing(const YAML::Node& sharing) {
  return sharing.IsMap() &&
         (sharing["device_plugin_config"].IsDefined() || sharing["device_plugin"].IsDefined());
}

void check_device_plugin_flag_keys(const YamlReader& yaml, const YAML::Node& flags,
                                   std::string_view path) {
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

DevicePluginSettings read_device_plugin_config(const YamlReader& yaml, const YAML::Node& node,
                                               std::string_view path, std::string source) {
  yaml.require_map(node, path);
  yaml.check_keys(node, path, {"version", "flags", "resources", "sharing", "imex"});
  DevicePluginSettings s;
  s.source = std::move(source);
  s.resource = std::string(kGpuResource);
  s.advertised = s.resource;
  // config.go: an empty version means v1; any other is refused ("unknown version").
  if (const YAML::Node v = node["version"]; v.IsDefined()) {
    const std::string vp = join_path(path, "version");
    if (const std::string version = yaml.string(v, vp); version != "v1")
      yaml.fail(
          v, vp,
          fmt::format("unknown version '{}' (the device plugin's config format is v1)", version));
  }
  if (const YAML::Node f = node["flags"]; f.IsDefined())
    read_flags(yaml, f, join_path(path, "flags"));
  if (const YAML::Node r = node["resources"]; r.IsDefined())
    not_supported(yaml, r, join_path(path, "resources"),
                  "customising resources (the device plugin itself ignores it and warns)");
  if (const YAML::Node i = node["imex"]; i.IsDefined())
    yaml.check_keys(i, join_path(path, "imex"), {"channelIDs", "required"});
  const YAML::Node sharing = node["sharing"];
  if (!sharing.IsDefined()) return s;
  const std::string sp = join_path(path, "sharing");
  yaml.check_keys(sharing, sp, {"timeSlicing", "mps"});
  const YAML::Node ts = sharing["timeSlicing"];
  const YAML::Node mps = sharing["mps"];
  if (ts.IsDefined() && mps.IsDefined())
    yaml.fail(mps, join_path(sp, "mps"),
              "give one of timeSlicing and mps (the device plugin would use mps and drop "
              "timeSlicing)");
  if (mps.IsDefined()) {
    s.strategy = "mps";
    // config.go keeps MPS's historical behaviour unless the config relaxes it.
    s.fail_requests_greater_than_one = true;
    read_replicated(yaml, mps, join_path(sp, "mps"), s);
  } else if (ts.IsDefined()) {
    s.strategy = "timeSlicing";
    read_replicated(yaml, ts, join_path(sp, "timeSlicing"), s);
  }
  return s;
}

void read_device_plugin_sharing(const YamlReader& yaml, const YAML::Node& node,
                                std::string_view path, SharingConfig& config) {
  if (const YAML::Node m = node["mode"]; m.IsDefined())
    yaml.fail(m, join_path(path, "mode"),
              "the device plugin config decides the mode (time-slice from sharing.timeSlicing, "
              "mps from sharing.mps); leave 'mode' out");
  yaml.check_keys(node, path,
                  {"device_plugin_config", "device_plugin", "config_name",
                   "context_switch_overhead", "fault_propagation", "client_fault_probability"});
  const YAML::Node file = node["device_plugin_config"];
  const YAML::Node inline_config = node["device_plugin"];
  if (file.IsDefined() && inline_config.IsDefined())
    yaml.fail(inline_config, join_path(path, "device_plugin"),
              "give either 'device_plugin_config' (a file) or 'device_plugin' (inline), not both");
  const YAML::Node name_node = node["config_name"];
  std::optional<std::string> entry;
  if (name_node.IsDefined()) {
    entry = yaml.string(name_node, join_path(path, "config_name"));
    if (!file.IsDefined())
      yaml.fail(name_node, join_path(path, "config_name"),
                "only applies to a ConfigMap file given as device_plugin_config");
  }
  DevicePluginSettings s;
  if (file.IsDefined()) {
    const std::string fp = join_path(path, "device_plugin_config");
    const std::string rel = yaml.string(file, fp);
    const auto full = std::filesystem::path(yaml.file()).parent_path() / rel;
    yaml.require_file(file, fp, full, "device plugin config");
    s = read_config_file(full.string(), rel, entry, name_node, yaml,
                         join_path(path, "config_name"));
  } else {
    s = read_device_plugin_config(yaml, inline_config, join_path(path, "device_plugin"), "inline");
  }
  config.kind = s.strategy == "mps"           ? "mps"
                : s.strategy == "timeSlicing" ? "time-slice"
                                              : "whole-card";
  if (config.kind == "mps") config.mps_replicas = s.replicas;
  if (config.kind == "time-slice") config.replicas = s.replicas;
  // The simulator's own settings of the mode, beside the plugin's config.
  auto only_for = [&](const char* key, std::string_view kind) {
    if (!node[key].IsDefined() || config.kind == kind) return;
    yaml.fail(
        node[key], join_path(path, key),
        fmt::format("only applies to {}; this device plugin config gives {}", kind, config.kind));
  };
  only_for("context_switch_overhead", "time-slice");
  only_for("fault_propagation", "mps");
  only_for("client_fault_probability", "mps");
  config.context_switch_overhead = yaml.opt_number(node, path, "context_switch_overhead", 0.0, 0.99)
                                       .value_or(config.context_switch_overhead);
  config.fault_propagation =
      yaml.opt_number(node, path, "fault_propagation", 0.0, 1.0).value_or(config.fault_propagation);
  config.client_fault_probability =
      yaml.opt_number(node, path, "client_fault_probability", 0.0, 1.0)
          .value_or(config.client_fault_probability);
  config.device_plugin = std::make_shared<const DevicePluginSettings>(std::move(s));
}

}  // namespace slicelab
