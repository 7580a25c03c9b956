// How the local backend enforces a pod's sharing mode on a real GPU: which mechanism a policy's
// sharing kind maps to, and the environment a pod's process gets for it. Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backends/local/child_process.h"

namespace slicelab {

enum class Mechanism { kWholeCard, kTimeSlice, kMps, kMig, kInterposer };

const char* to_string(Mechanism m);
std::optional<Mechanism> mechanism_named(std::string_view name);  // "whole-card", "mps", ...
// The mechanism a scenario's sharing kind runs under: whole-card and time-slice as named,
// gpu-share (fractional GPUs) by the interposer's caps; mps, mig and interposer as named.
std::optional<Mechanism> mechanism_for_sharing(std::string_view sharing_kind);

struct PodIsolation {
  Mechanism mechanism = Mechanism::kWholeCard;
  std::vector<std::string> devices;       // CUDA_VISIBLE_DEVICES entries: indices or MIG UUIDs
  int gpu_milli = 1000;                   // share of each GPU, 1..1000
  int64_t gpu_memory_mib = 0;             // 0 = no memory cap
  std::string interposer_library;         // kInterposer: path of libslicelab-interposer.so
  std::string shared_region;              // kInterposer: the pod's accounting region file
  std::string mps_pipe_dir, mps_log_dir;  // kMps: the daemon's folders
  bool mps_limits_by_daemon = false;      // kMps: the daemon holds the limits (replicas)
};

// The variables to set for the pod's process (laid over the inherited environment).
EnvMap isolation_environment(const PodIsolation& pod);

// The parts of it that the device plugin's Allocate answers too: the devices CUDA may use
// (CUDA_VISIBLE_DEVICES, in PCI bus order as NVML numbers them) and an MPS client's folders.
void set_visible_devices(EnvMap& env, const std::vector<std::string>& devices);
void set_mps_client_folders(EnvMap& env, const std::string& pipe_dir, const std::string& log_dir);

// The interposer's caps on one device a process sees (devices are numbered from 0 inside it,
// in CUDA_VISIBLE_DEVICES order).
struct InterposerDeviceCaps {
  int64_t memory_mib = 0;  // 0: no memory cap
  int sm_percent = 0;      // 0 or 100 (or more): no compute cap
};

// The interposer's variables, each in slicelab's name and in HAMi-core's so that either
// library enforces the same caps (backends/interposer/config.h reads both; ours win):
// SLICELAB_MEMORY_LIMIT / CUDA_DEVICE_MEMORY_LIMIT ("<n>m"), SLICELAB_SM_LIMIT /
// CUDA_DEVICE_SM_LIMIT, SLICELAB_SHARED_REGION / CUDA_DEVICE_MEMORY_SHARED_CACHE (when
// `shared_region` is not empty). One cap for every device uses the global names:
void set_interposer_environment(EnvMap& env, const InterposerDeviceCaps& every_device,
                                const std::string& shared_region);
// Caps per device use the _<i> names; HAMi-core has one compute cap for all devices, so
// CUDA_DEVICE_SM_LIMIT is written only when every device's compute cap is the same.
void set_interposer_environment(EnvMap& env, std::span<const InterposerDeviceCaps> devices,
                                const std::string& shared_region);
// The same caps as the interposer's caps file (backends/interposer/caps_file.h), which the
// device plugin writes on the host and mounts read-only where the interposer looks
// (/etc/slicelab/caps), so that a process's environment cannot raise them. `shared_region` is
// the region's path as the process sees it. std::invalid_argument for more devices than the
// interposer counts or a cap beyond what it reads (1 PiB).
std::string interposer_caps_file_text(std::span<const InterposerDeviceCaps> devices,
                                      const std::string& shared_region);

}  // namespace slicelab
