#include "backends/local/isolation.h"

#include <fmt/format.h>

#include <array>
#include <utility>

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
      if (!pod.shared_region.empty()) env["SLICELAB_SHARED_REGION"] = pod.shared_region;
      if (pod.gpu_memory_mib > 0)
        env["SLICELAB_MEMORY_LIMIT"] = fmt::format("{}m", pod.gpu_memory_mib);
      if (capped_share) env["SLICELAB_SM_LIMIT"] = std::to_string(percent_of(pod.gpu_milli));
      break;
  }
  return env;
}

}  // namespace slicelab
