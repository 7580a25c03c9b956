#include "backends/device_plugin/cdi_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <system_error>

namespace slicelab::device_plugin {
namespace {

// specs-go/version.go's released versions, oldest first.
constexpr std::array<std::string_view, 10> kKnownVersions = {
    "0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0"};

// pkg/cdi/container-edits.go validHookNames (the OCI hooks, prestart included).
constexpr std::array<std::string_view, 6> kHookNames = {
    "prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"};

// SPEC.md, Kind: the name segment is at most 63 characters, the prefix (a DNS subdomain) 253.
constexpr size_t kMaxClassLength = 63;
constexpr size_t kMaxVendorLength = 253;

bool is_letter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_alnum(char c) {
  return is_letter(c) || is_digit(c);
}

// The index of a version in kKnownVersions (a leading 'v' is accepted, as newVersion does);
// -1 when unknown.
int version_index(std::string_view version) {
  if (!version.empty() && version.front() == 'v') version.remove_prefix(1);
  const auto* it = std::find(kKnownVersions.begin(), kKnownVersions.end(), version);
  return it == kKnownVersions.end() ? -1 : static_cast<int>(it - kKnownVersions.begin());
}

// Quoted for messages; control characters and quotes escaped so a hostile name stays one line.
std::string shown(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\')
      out += fmt::format("\\{}", c);
    else if (u < 0x20 || u == 0x7f)
      out += fmt::format("\\x{:02x}", u);
    else
      out += c;
  }
  return out + "\"";
}

std::string char_error(char c, std::string_view what, std::string_view name) {
  return fmt::format("invalid character {} in {} {}", shown(std::string_view(&c, 1)), what,
                     shown(name));
}

// "" or why `path` is not an absolute path.
std::string path_error(std::string_view path) {
  if (path.empty()) return "empty";
  if (path.front() != '/') return fmt::format("{} is not an absolute path", shown(path));
  if (path.find('\0') != std::string_view::npos) return "holds a NUL character";
  return {};
}

// pkg/cdi/container-edits.go ValidateEnv: a '=' after at least one character.
bool env_ok(std::string_view entry) {
  const size_t eq = entry.find('=');
  return eq != std::string_view::npos && eq > 0;
}

void check_edits(const CdiContainerEdits& edits, const std::string& where,
                 std::vector<std::string>& errors) {
  const auto add = [&](const std::string& message) { errors.push_back(where + message); };
  for (size_t i = 0; i < edits.env.size(); ++i)
    if (!env_ok(edits.env[i]))
      add(fmt::format("env[{}] {}: expected NAME=VALUE", i, shown(edits.env[i])));
  for (size_t i = 0; i < edits.device_nodes.size(); ++i) {
    const CdiDeviceNode& node = edits.device_nodes[i];
    if (std::string e = path_error(node.path); !e.empty())
      add(fmt::format("deviceNodes[{}].path: {}", i, e));
    if (!node.host_path.empty())
      if (std::string e = path_error(node.host_path); !e.empty())
        add(fmt::format("deviceNodes[{}].hostPath: {}", i, e));
    // DeviceNode.Validate: "", "none", or only the letters r, w and m.
    const std::string& p = node.permissions;
    if (!p.empty() && p != "none" && p.find_first_not_of("rwm") != std::string::npos)
      add(fmt::format("deviceNodes[{}].permissions: {}: expected letters of \"rwm\" or \"none\"", i,
                      shown(p)));
  }
  for (size_t i = 0; i < edits.mounts.size(); ++i) {
    const CdiMount& mount = edits.mounts[i];
    if (std::string e = path_error(mount.host_path); !e.empty())
      add(fmt::format("mounts[{}].hostPath: {}", i, e));
    if (std::string e = path_error(mount.container_path); !e.empty())
      add(fmt::format("mounts[{}].containerPath: {}", i, e));
  }
  for (size_t i = 0; i < edits.hooks.size(); ++i) {
    const CdiHook& hook = edits.hooks[i];
    if (std::find(kHookNames.begin(), kHookNames.end(), hook.hook_name) == kHookNames.end())
      add(fmt::format("hooks[{}].hookName: {} is not one of {}", i, shown(hook.hook_name),
                      fmt::join(kHookNames, ", ")));
    if (std::string e = path_error(hook.path); !e.empty())
      add(fmt::format("hooks[{}].path: {}", i, e));
    for (size_t j = 0; j < hook.env.size(); ++j)
      if (!env_ok(hook.env[j]))
        add(fmt::format("hooks[{}].env[{}] {}: expected NAME=VALUE", i, j, shown(hook.env[j])));
    if (hook.timeout && *hook.timeout <= 0)
      add(fmt::format("hooks[{}].timeout: {} must be greater than zero", i, *hook.timeout));
  }
}

}  // namespace

std::string cdi_vendor_or_class_error(std::string_view name) {
  // parser.go validateVendorOrClassName.
  if (name.empty()) return "empty name";
  if (!is_letter(name.front())) return fmt::format("{} should start with a letter", shown(name));
  for (size_t i = 1; i + 1 < name.size(); ++i) {
    const char c = name[i];
    if (!is_alnum(c) && c != '_' && c != '-' && c != '.') return char_error(c, "name", name);
  }
  if (!is_alnum(name.back()))
    return fmt::format("{} should end with a letter or digit", shown(name));
  return {};
}

std::string cdi_device_name_error(std::string_view name) {
  // parser.go ValidateDeviceName.
  if (name.empty()) return "empty device name";
  if (!is_alnum(name.front()))
    return fmt::format("{} should start with a letter or digit", shown(name));
  for (size_t i = 1; i + 1 < name.size(); ++i) {
    const char c = name[i];
    if (!is_alnum(c) && c != '_' && c != '-' && c != '.' && c != ':')
      return char_error(c, "device name", name);
  }
  if (!is_alnum(name.back()))
    return fmt::format("{} should end with a letter or digit", shown(name));
  return {};
}

CdiContainerEdits cdi_edits_from_allocation(const ContainerAllocation& allocation) {
  CdiContainerEdits edits;
  for (const auto& [name, value] : allocation.envs)
    edits.env.push_back(fmt::format("{}={}", name, value));
  for (const DeviceNode& node : allocation.devices) {
    CdiDeviceNode& out = edits.device_nodes.emplace_back();
    out.path = node.container_path;
    // hostPath (v0.5.0) only when it says something: omitted, the runtime uses path.
    if (node.host_path != node.container_path) out.host_path = node.host_path;
    out.permissions = node.permissions;
  }
  for (const Mount& mount : allocation.mounts)
    edits.mounts.push_back(CdiMount{mount.host_path,
                                    mount.container_path,
                                    {mount.read_only ? "ro" : "rw", "nosuid", "nodev", "bind"},
                                    {}});
  return edits;
}

CdiSpec build_cdi_spec(std::span<const CdiDeviceEdits> devices, std::string_view kind,
                       const ContainerAllocation& common, CdiVersionChoice version) {
  CdiSpec spec;
  spec.kind = std::string(kind);
  std::multimap<std::string, size_t> seen;  // name -> index in spec.devices
  for (const CdiDeviceEdits& device : devices) {
    CdiDevice out{device.name, cdi_edits_from_allocation(device.edits)};
    const auto [first, last] = seen.equal_range(out.name);
    const bool same = std::any_of(
        first, last, [&](const auto& entry) { return spec.devices[entry.second] == out; });
    if (same) continue;
    seen.emplace(out.name, spec.devices.size());
    spec.devices.push_back(std::move(out));
  }
  spec.container_edits = cdi_edits_from_allocation(common);
  spec.version = version == CdiVersionChoice::kCurrent ? std::string(kCdiCurrentVersion)
                                                       : minimum_cdi_version(spec);
  return spec;
}

ContainerAllocation nvidia_control_device_nodes(const std::filesystem::path& dev_root) {
  ContainerAllocation common;
  for (const char* name : {"nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset"}) {
    std::error_code ec;
    const std::filesystem::path host = dev_root / name;
    if (!std::filesystem::exists(host, ec) || ec) continue;
    common.devices.push_back(DeviceNode{std::string("/dev/") + name, host.string(), "rw"});
  }
  return common;
}

std::string minimum_cdi_version(const CdiSpec& spec) {
  int needed = version_index(kCdiEarliestVersion);
  const auto need = [&](std::string_view version) {
    needed = std::max(needed, version_index(version));
  };
  const auto scan = [&](const CdiContainerEdits& edits) {
    for (const CdiMount& mount : edits.mounts)
      if (!mount.type.empty()) need("0.4.0");
    for (const CdiDeviceNode& node : edits.device_nodes)
      if (!node.host_path.empty()) need("0.5.0");
  };
  scan(spec.container_edits);
  for (const CdiDevice& device : spec.devices) {
    if (!device.name.empty() && is_digit(device.name.front())) need("0.5.0");
    scan(device.container_edits);
  }
  if (const size_t slash = spec.kind.find('/');
      slash != std::string::npos && spec.kind.find('.', slash) != std::string::npos)
    need("0.6.0");
  return std::string(kKnownVersions[static_cast<size_t>(needed)]);
}

std::vector<std::string> validate_cdi_spec(const CdiSpec& spec) {
  std::vector<std::string> errors;
  // cdiVersion: a released version, and not older than the fields used (ValidateVersion).
  if (spec.version.empty()) {
    errors.emplace_back("cdiVersion: missing");
  } else if (version_index(spec.version) < 0) {
    errors.push_back(fmt::format("cdiVersion: {} is not a released CDI version ({})",
                                 shown(spec.version), fmt::join(kKnownVersions, ", ")));
  } else {
    const std::string minimum = minimum_cdi_version(spec);
    if (version_index(spec.version) < version_index(minimum))
      errors.push_back(fmt::format(
          "cdiVersion: {} is older than the fields used need: the version must be at least {}",
          shown(spec.version), minimum));
  }
  // kind: "vendor/class" (parser.go ParseQualifier splits at the first '/').
  if (spec.kind.empty()) {
    errors.emplace_back("kind: missing");
  } else {
    const size_t slash = spec.kind.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == spec.kind.size()) {
      errors.push_back(fmt::format("kind: {}: expected vendor/class", shown(spec.kind)));
    } else {
      const std::string_view kind = spec.kind;
      const std::string_view vendor = kind.substr(0, slash), cls = kind.substr(slash + 1);
      if (std::string e = cdi_vendor_or_class_error(vendor); !e.empty())
        errors.push_back(fmt::format("kind: invalid vendor: {}", e));
      else if (vendor.size() > kMaxVendorLength)
        errors.push_back(fmt::format("kind: vendor longer than {} characters", kMaxVendorLength));
      if (std::string e = cdi_vendor_or_class_error(cls); !e.empty())
        errors.push_back(fmt::format("kind: invalid class: {}", e));
      else if (cls.size() > kMaxClassLength)
        errors.push_back(fmt::format("kind: class longer than {} characters", kMaxClassLength));
    }
  }
  check_edits(spec.container_edits, "containerEdits.", errors);
  // devices: at least one (SPEC.md: "at least one entry must be specified"), names unique.
  if (spec.devices.empty()) errors.emplace_back("devices: no devices (a spec needs at least one)");
  std::map<std::string_view, size_t> first_index;
  for (size_t i = 0; i < spec.devices.size(); ++i) {
    const CdiDevice& device = spec.devices[i];
    const std::string where = fmt::format("devices[{}] {}: ", i, shown(device.name));
    if (std::string e = cdi_device_name_error(device.name); !e.empty())
      errors.push_back(fmt::format("{}name: {}", where, e));
    const auto [it, inserted] = first_index.emplace(device.name, i);
    if (!inserted)
      errors.push_back(where + fmt::format("name: the same as devices[{}]'s", it->second));
    if (device.container_edits.empty())
      errors.push_back(where +
                       "containerEdits: no edits (a device needs an env, deviceNode, mount or "
                       "hook)");
    check_edits(device.container_edits, where + "containerEdits.", errors);
  }
  return errors;
}

}  // namespace slicelab::device_plugin
