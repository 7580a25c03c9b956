#include "backends/device_plugin/mps_share.h"

#include <filesystem>
#include <utility>

#include "backends/local/isolation.h"

namespace slicelab::device_plugin {

MpsShare::MpsShare(const std::string& mps_root, const std::string& resource, std::string control,
                   int replicas, std::vector<std::string> gpu_uuids,
                   std::vector<int64_t> memory_mib)
    : control_(std::move(control)),
      replicas_(replicas),
      gpu_uuids_(std::move(gpu_uuids)),
      memory_mib_(std::move(memory_mib)) {
  // NVIDIA's mps.Root: <root>/<resource name>/pipe and .../log ("nvidia.com/gpu" makes two
  // folder levels, as it does there).
  const std::filesystem::path base = std::filesystem::path(mps_root) / resource;
  folders_.pipe_dir = (base / "pipe").string();
  folders_.log_dir = (base / "log").string();
}

void MpsShare::ensure_started() {
  const std::lock_guard lock(mu_);
  if (daemon_) return;
  std::string visible;
  for (const std::string& u : gpu_uuids_) visible += (visible.empty() ? "" : ",") + u;
  auto d = std::make_unique<MpsDaemon>(control_, visible, folders_);
  d->set_replica_limits(replicas_, memory_mib_);
  daemon_ = std::move(d);
}

bool MpsShare::started() const {
  const std::lock_guard lock(mu_);
  return daemon_ != nullptr;
}

void MpsShare::add_client_edits(ContainerAllocation& a) const {
  set_mps_client_folders(a.envs, folders_.pipe_dir, folders_.log_dir);
  a.mounts.push_back(Mount{folders_.pipe_dir, folders_.pipe_dir, false});
  a.mounts.push_back(Mount{folders_.log_dir, folders_.log_dir, false});
  a.mounts.push_back(Mount{"/dev/shm", "/dev/shm", false});
}

}  // namespace slicelab::device_plugin
