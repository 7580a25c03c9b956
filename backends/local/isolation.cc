#include "backends/local/isolation.h"

#include <fmt/format.h>

#include <array>
#include <stdexcept>
#include <utility>

#include "backends/interposer/caps_file.h"

namespace slicelab {
namespace {

constexpr std::array<std::pair<Mechanism, const char*>, 5> kNames{{
    {Mechanism::kWholeCard, "whole-card"},
    {Mechanism::kTimeSlice, "time-slice"},
    {Mechanism::kMps, "mps"},
    {Mechanism::kMig, "mig"},
    {Mechanism::kInterposer, "interposer"},
}};

// Percent of SMs for a share in milli-GPUs, rounded up so that a pod never gets less than
// its claim (MPS and the interposer both take whole percents).
int percent_of(int milli) {
  return std::max(1, (milli + 9) / 10);
}

}  // namespace

const char* to_string(Mechanism m) {
  for (const auto& [k, n] : kNames)
    if (k == m) return n;
  return "?";
}

std::optional<Mechanism> mechanism_named(std::string_view name) {
  for (const auto& [k, n] : kNames)
    if (name == n) return k;
  return std::nullopt;
}

std::optional<Mechanism> mechanism_for_sharing(std::string_view sharing_kind) {
  if (sharing_kind == "gpu-share") return Mechanism::kInterposer;
  return mechanism_named(sharing_kind);
}

void set_visible_devices(EnvMap& env, const std::vector<std::string>& devices) {
  std::string visible;
  for (const std::string& d : devices) visible += (visible.empty() ? "" : ",") + d;
  // NVML's order (which placement saw) is the PCI bus order; make CUDA's the same.
  env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID";
  env["CUDA_VISIBLE_DEVICES"] = visible;
}

void set_mps_client_folders(EnvMap& env, const std::string& pipe_dir, const std::string& log_dir) {
  env["CUDA_MPS_PIPE_DIRECTORY"] = pipe_dir;
  env["CUDA_MPS_LOG_DIRECTORY"] = log_dir;
}

EnvMap isolation_environment(const PodIsolation& pod) {
  EnvMap env;
  set_visible_devices(env, pod.devices);
  const bool capped_share = pod.gpu_milli > 0 && pod.gpu_milli < 1000;
  switch (pod.mechanism) {
    case Mechanism::kWholeCard:
    case Mechanism::kTimeSlice:
    case Mechanism::kMig:
      break;  // the device list is the whole enforcement (MIG: the instance's UUID)
    case Mechanism::kMps:
      set_mps_client_folders(env, pod.mps_pipe_dir, pod.mps_log_dir);
      if (pod.mps_limits_by_daemon) break;
      if (capped_share)
        env["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"] = std::to_string(percent_of(pod.gpu_milli));
      if (pod.gpu_memory_mib > 0) {
        // One limit per visible device; inside the client, devices are numbered from 0.
        std::string limits;
        for (size_t i = 0; i < pod.devices.size(); ++i)
          limits += fmt::format("{}{}={}M", i ? "," : "", i, pod.gpu_memory_mib);
        env["CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"] = limits;
      }
      break;
    case Mechanism::kInterposer:
      env["LD_PRELOAD"] = pod.interposer_library;
      set_interposer_environment(
          env,
          InterposerDeviceCaps{.memory_mib = pod.gpu_memory_mib,
                               .sm_percent = capped_share ? percent_of(pod.gpu_milli) : 0},
          pod.shared_region);
      break;
  }
  return env;
}

namespace {

bool compute_capped(int sm_percent) {
  return sm_percent > 0 && sm_percent < 100;
}

void set_region(EnvMap& env, const std::string& shared_region) {
  if (shared_region.empty()) return;
  env["SLICELAB_SHARED_REGION"] = shared_region;
  env["CUDA_DEVICE_MEMORY_SHARED_CACHE"] = shared_region;
}

}  // namespace

void set_interposer_environment(EnvMap& env, const InterposerDeviceCaps& every_device,
                                const std::string& shared_region) {
  if (every_device.memory_mib > 0) {
    const std::string limit = fmt::format("{}m", every_device.memory_mib);
    env["SLICELAB_MEMORY_LIMIT"] = limit;
    env["CUDA_DEVICE_MEMORY_LIMIT"] = limit;
  }
  if (compute_capped(every_device.sm_percent)) {
    env["SLICELAB_SM_LIMIT"] = std::to_string(every_device.sm_percent);
    env["CUDA_DEVICE_SM_LIMIT"] = std::to_string(every_device.sm_percent);
  }
  set_region(env, shared_region);
}

void set_interposer_environment(EnvMap& env, std::span<const InterposerDeviceCaps> devices,
                                const std::string& shared_region) {
  bool same_sm = true;
  for (size_t i = 0; i < devices.size(); ++i) {
    const InterposerDeviceCaps& d = devices[i];
    if (d.memory_mib > 0) {
      const std::string limit = fmt::format("{}m", d.memory_mib);
      env[fmt::format("SLICELAB_MEMORY_LIMIT_{}", i)] = limit;
      env[fmt::format("CUDA_DEVICE_MEMORY_LIMIT_{}", i)] = limit;
    }
    if (compute_capped(d.sm_percent))
      env[fmt::format("SLICELAB_SM_LIMIT_{}", i)] = std::to_string(d.sm_percent);
    // Uncapped devices agree with each other whatever their value (0 or 100).
    const bool a = compute_capped(d.sm_percent), b = compute_capped(devices[0].sm_percent);
    if (a != b || (a && d.sm_percent != devices[0].sm_percent)) same_sm = false;
  }
  if (!devices.empty() && same_sm && compute_capped(devices[0].sm_percent))
    env["CUDA_DEVICE_SM_LIMIT"] = std::to_string(devices[0].sm_percent);
  set_region(env, shared_region);
}

std::string interposer_caps_file_text(std::span<const InterposerDeviceCaps> devices,
                                      const std::string& shared_region) {
  interposer::CapsFileContents contents;
  contents.region_path = shared_region;
  for (const InterposerDeviceCaps& d : devices) {
    interposer::CapsFileDevice f;
    if (d.memory_mib > 0) {
      if (static_cast<uint64_t>(d.memory_mib) > (interposer::kMaxMemoryCap >> 20))
        throw std::invalid_argument("a memory cap of " + std::to_string(d.memory_mib) +
                                    " MiB is more than the interposer reads (1 PiB)");
      f.memory_bytes = static_cast<uint64_t>(d.memory_mib) << 20;
    }
    if (compute_capped(d.sm_percent)) f.sm_percent = d.sm_percent;
    contents.devices.push_back(f);
  }
  return interposer::caps_file_text(contents);
}

}  // namespace slicelab
