// A Container Device Interface spec (github.com/cncf-tags/container-device-interface, SPEC.md)
// as a value: built from the node's resources, checked against the spec's rules.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backends/device_plugin/resource_plugin.h"

namespace slicelab::device_plugin {

// The newest spec version (specs-go/version.go CurrentVersion) and the version a spec without
// any newer field needs (vEarliest there).
inline constexpr std::string_view kCdiCurrentVersion = "1.1.0";
inline constexpr std::string_view kCdiEarliestVersion = "0.3.0";

struct CdiDeviceNode {
  std::string path;         // in the container
  std::string host_path;    // "" = the same as path (hostPath needs v0.5.0)
  std::string permissions;  // cgroup "r", "w", "m" letters; "" = the runtime's default (rwm)
  bool operator==(const CdiDeviceNode&) const = default;
};

struct CdiMount {
  std::string host_path;
  std::string container_path;
  std::vector<std::string> options;  // OCI mount options: "ro", "nosuid", "nodev", "bind"
  std::string type;                  // "" unless set (type needs v0.4.0)
  bool operator==(const CdiMount&) const = default;
};

struct CdiHook {
  std::string hook_name;  // createRuntime, createContainer, startContainer, poststart, ...
  std::string path;
  std::vector<std::string> args;
  std::vector<std::string> env;
  std::optional<int64_t> timeout;  // seconds; > 0 when set
  bool operator==(const CdiHook&) const = default;
};

struct CdiContainerEdits {
  std::vector<std::string> env;  // "NAME=VALUE"
  std::vector<CdiDeviceNode> device_nodes;
  std::vector<CdiMount> mounts;
  std::vector<CdiHook> hooks;
  bool empty() const {
    return env.empty() && device_nodes.empty() && mounts.empty() && hooks.empty();
  }
  bool operator==(const CdiContainerEdits&) const = default;
};

struct CdiDevice {
  std::string name;  // within the kind: "GPU-…", "GPU-…::3", "MIG-…", "GPU-…::share-2"
  CdiContainerEdits container_edits;
  bool operator==(const CdiDevice&) const = default;
};

struct CdiSpec {
  std::string version;  // cdiVersion
  std::string kind;     // "vendor/class"
  std::vector<CdiDevice> devices;
  CdiContainerEdits container_edits;  // applied when any of the devices is requested
  bool operator==(const CdiSpec&) const = default;
};

// Which cdiVersion a built spec declares.
enum class CdiVersionChoice {
  // The oldest version that has every field the spec uses, as nvidia-ctk does by default
  // (its DetectMinimumVersion, through the CDI library's MinimumRequiredVersion). A runtime
  // refuses a spec whose version it does not know, so the oldest sufficient version is the
  // one the most containerd, CRI-O and podman releases load; the current library accepts it
  // (ValidateVersion asks only for version >= the minimum) and the content is the same.
  kMinimum,
  kCurrent,  // always kCdiCurrentVersion
};

// The spec for `devices` (the ResourcePlugins' cdi_devices(), in their order; a device given
// twice with the same edits is kept once, with different edits twice so that validation names
// it). `common` holds the edits every device needs (/dev/nvidiactl, /dev/nvidia-uvm). Mounts
// get "ro" (or "rw"), "nosuid", "nodev", "bind", as nvidia-ctk writes library mounts; a device
// node's hostPath is written only when it differs from its path. Does not validate.
CdiSpec build_cdi_spec(std::span<const CdiDeviceEdits> devices, std::string_view kind,
                       const ContainerAllocation& common = {},
                       CdiVersionChoice version = CdiVersionChoice::kMinimum);

// The edits of one device from what Allocate would return (envs, mounts, device nodes).
CdiContainerEdits cdi_edits_from_allocation(const ContainerAllocation& allocation);

// The NVIDIA driver's control nodes that exist under `dev_root` (nvidiactl, nvidia-uvm,
// nvidia-uvm-tools, nvidia-modeset), as the spec-level edits every GPU container needs.
ContainerAllocation nvidia_control_device_nodes(const std::filesystem::path& dev_root = "/dev");

// The oldest spec version with every field `spec` uses (specs-go/version.go's rules for the
// fields modelled here: mount type 0.4.0; device node hostPath and a device name starting
// with a digit 0.5.0; a dot in the kind's class 0.6.0; else the earliest).
std::string minimum_cdi_version(const CdiSpec& spec);

// Every violation of the spec's rules, each naming the device and the field ("devices[2]
// \"bad name\": name: ..."); empty when the spec is valid. Checks what a runtime's CDI library
// checks when it loads the file (cdiVersion known and not older than the fields need; kind
// "vendor/class" with the parser's character sets and SPEC.md's lengths; at least one device;
// names valid and unique; every device with at least one edit; env "NAME=VALUE"; device node
// permissions; hook names) and, stricter, that every path is absolute.
std::vector<std::string> validate_cdi_spec(const CdiSpec& spec);

// The parser's name rules (pkg/parser/parser.go): "" when valid, else why not.
std::string cdi_vendor_or_class_error(std::string_view name);
std::string cdi_device_name_error(std::string_view name);

}  // namespace slicelab::device_plugin
