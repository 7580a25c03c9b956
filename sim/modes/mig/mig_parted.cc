#include "sim/modes/mig/mig_parted.h"

#include <fmt/format.h>

#include <algorithm>

#include "workloads/hardware/mig_profiles.h"
#include "workloads/hardware/pci_device_ids.h"

namespace slicelab {
namespace {

std::string where(const YamlReader& yaml, const YAML::Node& node, std::string_view path) {
  const YAML::Mark m = node.Mark();
  if (m.is_null()) return fmt::format("{}: {}", yaml.file(), path);
  return fmt::format("{}:{}:{}: {}", yaml.file(), m.line + 1, m.column + 1, path);
}

// device-filter: one PCI device ID or a list of them (spec.go accepts a string or a list of
// strings); each must be in the table so that it selects catalog models.
void read_device_filter(const YamlReader& yaml, const YAML::Node& f, const std::string& path,
                        MigDeviceRule& rule) {
  if (f.IsSequence() && f.size() == 0) yaml.fail(f, path, "needs at least one PCI device ID");
  const std::vector<std::string> ids =
      f.IsScalar() ? std::vector<std::string>{yaml.string(f, path)} : yaml.string_list(f, path);
  for (size_t i = 0; i < ids.size(); ++i) {
    const YAML::Node at = f.IsScalar() ? f : f[i];
    const std::string ip = f.IsScalar() ? path : index_path(path, i);
    std::string error;
    const PciGpuId* id = find_pci_gpu_id(ids[i], error);
    if (!id) yaml.fail(at, ip, error);
    rule.device_filter.push_back(ids[i]);
    const std::string model(id->gpu_model);
    if (!model.empty() && std::find(rule.filter_models.begin(), rule.filter_models.end(), model) ==
                              rule.filter_models.end())
      rule.filter_models.push_back(model);
  }
}

MigDeviceRule read_rule(const YamlReader& yaml, const YAML::Node& node, const std::string& path) {
  yaml.require_map(node, path);
  yaml.check_keys(node, path, {"device-filter", "devices", "mig-enabled", "mig-devices"});
  MigDeviceRule rule;
  rule.where = where(yaml, node, path);
  if (const YAML::Node f = node["device-filter"]; f.IsDefined())
    read_device_filter(yaml, f, join_path(path, "device-filter"), rule);
  const YAML::Node dev = yaml.required(node, path, "devices");
  const std::string dp = join_path(path, "devices");
  if (dev.IsScalar()) {
    if (dev.Scalar() != "all") yaml.fail_expected(dev, dp, "all or a list of GPU indexes");
  } else if (dev.IsSequence()) {
    if (dev.size() == 0) yaml.fail(dev, dp, "needs at least one GPU index");
    for (size_t i = 0; i < dev.size(); ++i) {
      const int d = static_cast<int>(yaml.integer(dev[i], index_path(dp, i), 0, 63));
      if (std::find(rule.devices.begin(), rule.devices.end(), d) != rule.devices.end())
        yaml.fail(dev[i], index_path(dp, i), fmt::format("GPU {} listed twice", d));
      rule.devices.push_back(d);
    }
  } else {
    yaml.fail_expected(dev, dp, "all or a list of GPU indexes");
  }
  rule.mig_enabled =
      yaml.boolean(yaml.required(node, path, "mig-enabled"), join_path(path, "mig-enabled"));
  const YAML::Node md = node["mig-devices"];
  const std::string mp = join_path(path, "mig-devices");
  if (md.IsDefined() && !(md.IsMap() && md.size() == 0)) {
    if (!rule.mig_enabled) yaml.fail(md, mp, "needs mig-enabled: true");
    yaml.require_map(md, mp);
    for (const auto& kv : md) {
      const std::string name = kv.first.Scalar();
      const std::string ip = join_path(mp, name);
      if (!is_known_mig_profile(name))
        yaml.fail(
            kv.first, ip,
            fmt::format("unknown MIG profile '{}' (known: {})", name, known_mig_profile_names()));
      rule.mig_devices.emplace_back(name, static_cast<int>(yaml.integer(kv.second, ip, 0, 7)));
    }
  }
  return rule;
}

}  // namespace

bool MigDeviceRule::applies_to(int gpu) const {
  return devices.empty() || std::find(devices.begin(), devices.end(), gpu) != devices.end();
}

bool MigDeviceRule::applies_to(int gpu, std::string_view model) const {
  if (!device_filter.empty() &&
      std::find(filter_models.begin(), filter_models.end(), model) == filter_models.end())
    return false;
  return applies_to(gpu);
}

std::string MigPartedConfig::names() const {
  std::vector<std::string> n;
  n.reserve(configs.size());
  for (const auto& kv : configs) n.push_back(kv.first);
  return fmt::format("{}", fmt::join(n, ", "));
}

MigPartedConfig read_mig_parted(const YamlReader& yaml, const YAML::Node& node,
                                std::string_view path) {
  yaml.require_map(node, path);
  yaml.check_keys(node, path, {"version", "mig-configs"});
  if (const YAML::Node v = node["version"]; v.IsDefined()) {
    if (yaml.string(v, join_path(path, "version")) != "v1")
      yaml.fail_expected(v, join_path(path, "version"), "v1");
  }
  const std::string cp = join_path(path, "mig-configs");
  const YAML::Node configs = yaml.required(node, path, "mig-configs");
  yaml.require_map(configs, cp);
  if (configs.size() == 0) yaml.fail(configs, cp, "needs at least one configuration");
  MigPartedConfig out;
  for (const auto& kv : configs) {
    const std::string name = kv.first.Scalar();
    const std::string np = join_path(cp, name);
    yaml.require_seq(kv.second, np);
    if (kv.second.size() == 0) yaml.fail(kv.second, np, "needs at least one device entry");
    std::vector<MigDeviceRule> rules;
    for (size_t i = 0; i < kv.second.size(); ++i)
      rules.push_back(read_rule(yaml, kv.second[i], index_path(np, i)));
    out.configs.emplace(name, std::move(rules));
  }
  return out;
}

MigPartedConfig load_mig_parted_file(const std::string& file) try {
  const YAML::Node root = load_yaml_file(file);
  const YamlReader yaml(file);
  yaml.require_map(root, "");
  if (!root["version"].IsDefined()) yaml.fail(root, "", "a mig-parted file needs 'version: v1'");
  return read_mig_parted(yaml, root, "");
} catch (const YAML::Exception& e) {
  // A yaml-cpp exception that a check above missed still names the file.
  throw located_yaml_error(file, e);
}

}  // namespace slicelab
