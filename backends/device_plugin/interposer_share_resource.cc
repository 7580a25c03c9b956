#include "backends/device_plugin/interposer_share_resource.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

#include "backends/device_plugin/host_files.h"
#include "backends/interposer/caps_file.h"
#include "backends/local/isolation.h"
#include "workloads/input_error.h"

namespace slicelab::device_plugin {
namespace {

// What write_preload_file writes is one line; anything longer is not ours.
constexpr uint64_t kMaxPreloadFileBytes = 4096;

// One line naming an interposer library: an ld.so.preload this plugin wrote.
bool is_interposer_preload(std::string_view text) {
  if (text.empty() || text.back() != '\n') return false;
  text.remove_suffix(1);
  return text.find('\n') == std::string_view::npos && text.starts_with('/') &&
         text.ends_with("/libslicelab-interposer.so");
}

constexpr std::string_view kShareSeparator = "::share-";
// The region file inside a container's region folder (the folder is the container's own, so
// the name needs nothing unique in it).
constexpr const char* kRegionFile = "region.cache";
constexpr const char* kPreloadFile = "ld.so.preload";
// A fresh folder name is found within this many tries (each one a folder that exists already).
constexpr int kMaxFolderTries = 10000;

// A pod UID ("5f3c…-…") as a folder name: letters, digits, '-' and '.' kept, the rest '_'.
std::string folder_name_of(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 128)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '.';
    out += ok ? c : '_';
  }
  if (out.empty() || out[0] == '.') out.insert(0, "pod");
  return out;
}

class InterposerShareResource final : public ResourcePlugin {
 public:
  InterposerShareResource(const NodePluginConfig& config, std::span<const DetectedGpu> gpus,
                          const DeviceHealth& health, PodSource& pods)
      : config_(config.interposer),
        cdi_kind_(config.cdi_kind),
        cdi_(std::any_of(config.list_strategies.begin(), config.list_strategies.end(),
                         [](DeviceListStrategy s) {
                           return s == DeviceListStrategy::kCdiAnnotations ||
                                  s == DeviceListStrategy::kCdiCri;
                         })),
        health_(health),
        pods_(pods) {
    if (config_.split_count < 1)
      throw InputError("slicelab.interposer.splitCount must be at least 1, not " +
                       std::to_string(config_.split_count));
    // A MIG-enabled GPU has no whole card to share: its instances are served as MIG devices.
    for (const DetectedGpu& g : gpus)
      if (!g.mig_enabled && !g.uuid.empty()) gpus_.push_back(g);
  }

  std::string resource_name() const override { return config_.resource; }

  std::vector<AdvertisedDevice> devices() const override {
    std::vector<AdvertisedDevice> out;
    out.reserve(gpus_.size() * static_cast<size_t>(config_.split_count));
    for (const DetectedGpu& g : gpus_) {
      const bool healthy = health_.healthy(g.uuid);
      for (int k = 0; k < config_.split_count; ++k)
        out.push_back(AdvertisedDevice{.id = share_id(g, k), .healthy = healthy});
    }
    return out;
  }

  std::vector<std::string> preferred(const PreferredRequest& request) const override;
  ContainerAllocation allocate(std::span<const std::string> device_ids) override;
  std::vector<CdiDeviceEdits> cdi_devices() const override;

 private:
  struct Share {
    size_t gpu = 0;  // position in gpus_
    int k = 0;
  };
  struct Visible {
    size_t gpu = 0;
    InterposerDeviceCaps caps;
  };

  std::string share_id(const DetectedGpu& g, int k) const {
    return g.uuid + std::string(kShareSeparator) + std::to_string(k);
  }
  // The share an ID names, or nullopt when it is not one of ours.
  std::optional<Share> parse_id(std::string_view id) const;
  // The GPUs and caps the pod's annotation gives, else its requests on the kubelet's GPUs.
  std::vector<Visible> visible_devices(const PendingPod& pod,
                                       std::span<const std::string> device_ids,
                                       std::span<const Share> shares) const;
  // The edits every share has whatever the pod: the library and the preload file (or
  // LD_PRELOAD). Writes nothing: the preload file is written when the plugin serves (allocate),
  // never when a spec is generated.
  ContainerAllocation common_edits() const;
  // Writes <hostPreloadDir>/ld.so.preload the first time; AllocationError when it cannot.
  void write_preload_file() const;
  std::string preload_host_path() const {
    return (std::filesystem::path(config_.host_preload_dir) / kPreloadFile).string();
  }
  // A fresh host folder for one container's region; never one that existed before.
  std::string make_region_folder(const PendingPod& pod);
  // Writes the container's caps file beside its region folder (`folder` + ".caps") and returns
  // its host path; never replaces a file.
  std::string write_caps_file(const std::string& folder, const std::string& text) const;

  InterposerShareConfig config_;
  std::string cdi_kind_;
  bool cdi_;
  std::vector<DetectedGpu> gpus_;
  const DeviceHealth& health_;
  PodSource& pods_;
  std::mutex allocate_mutex_;  // one Allocate at a time: pod choice and marking are node-wide
  mutable std::mutex preload_mutex_;
  mutable bool preload_written_ = false;
  uint64_t folder_counter_ = 0;
};

std::optional<InterposerShareResource::Share> InterposerShareResource::parse_id(
    std::string_view id) const {
  const size_t at = id.rfind(kShareSeparator);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view uuid = id.substr(0, at);
  const std::string_view k_text = id.substr(at + kShareSeparator.size());
  if (k_text.empty() || k_text.size() > 6 || (k_text.size() > 1 && k_text[0] == '0'))
    return std::nullopt;
  int k = 0;
  for (const char c : k_text) {
    if (c < '0' || c > '9') return std::nullopt;
    k = k * 10 + (c - '0');
  }
  if (k >= config_.split_count) return std::nullopt;
  for (size_t i = 0; i < gpus_.size(); ++i)
    if (gpus_[i].uuid == uuid) return Share{i, k};
  return std::nullopt;
}

std::vector<std::string> InterposerShareResource::preferred(const PreferredRequest& request) const {
  std::vector<std::string> out;
  std::set<std::string> taken;
  std::vector<int> chosen(gpus_.size(), 0), available(gpus_.size(), 0);
  // Only what is offered: a must_include ID that is not available (or not ours) is never
  // handed back (the server refuses such a request before it gets here).
  const std::set<std::string_view> offered(request.available.begin(), request.available.end());
  for (const std::string& id : request.must_include) {
    if (static_cast<int>(out.size()) >= request.size) break;
    const auto s = parse_id(id);
    if (!s || !offered.contains(id) || !taken.insert(id).second) continue;
    out.push_back(id);
    ++chosen[s->gpu];
  }
  // Per GPU, its available shares in share order: the lowest k first, for a stable answer.
  std::vector<std::vector<std::pair<int, std::string>>> free(gpus_.size());
  for (const std::string& id : request.available) {
    const auto s = parse_id(id);
    if (!s) continue;
    ++available[s->gpu];  // must_include ones too: they are not in use elsewhere
    if (!taken.contains(id)) free[s->gpu].emplace_back(s->k, id);
  }
  for (auto& f : free) std::sort(f.begin(), f.end());
  std::vector<size_t> next(gpus_.size(), 0);
  // Spread: each pick from the GPU with the fewest shares in this answer, then the fewest in
  // use elsewhere (split_count minus what the kubelet still offers), then the lowest index.
  while (static_cast<int>(out.size()) < request.size) {
    size_t best = gpus_.size();
    for (size_t g = 0; g < gpus_.size(); ++g) {
      if (next[g] >= free[g].size()) continue;
      if (best == gpus_.size()) {
        best = g;
        continue;
      }
      const auto key = [&](size_t i) {
        return std::tuple(chosen[i], config_.split_count - available[i], gpus_[i].index, i);
      };
      if (key(g) < key(best)) best = g;
    }
    if (best == gpus_.size()) break;  // fewer available than asked: the kubelet decides
    out.push_back(free[best][next[best]++].second);
    ++chosen[best];
  }
  return out;
}

std::vector<InterposerShareResource::Visible> InterposerShareResource::visible_devices(
    const PendingPod& pod, std::span<const std::string> device_ids,
    std::span<const Share> shares) const {
  const std::string who = "pod " + pod.namespace_name + "/" + pod.name;
  std::vector<Visible> out;
  auto add = [&](size_t gpu, InterposerDeviceCaps caps) {
    for (const Visible& v : out)
      if (v.gpu == gpu)
        throw AllocationError(who + " would get GPU " + gpus_[gpu].uuid +
                              " twice; one container sees each GPU once");
    out.push_back(Visible{gpu, caps});
  };
  if (pod.assignment) {
    // As HAMi does, the extender's choice wins over the kubelet's IDs: the kubelet picks share
    // IDs without knowing which GPU the scheduler gave the pod.
    const auto& assigned = pod.assignment->gpus;
    if (assigned.size() != device_ids.size())
      throw AllocationError(who + ": its " + std::string(k8s::kGpuAssignmentAnnotation) +
                            " names " + std::to_string(assigned.size()) +
                            " GPU(s) but the kubelet asks for " +
                            std::to_string(device_ids.size()) + " device(s)");
    for (const k8s::AssignedGpu& a : assigned) {
      size_t found = gpus_.size();
      for (size_t i = 0; i < gpus_.size(); ++i)
        if (a.uuid.empty() ? static_cast<int>(gpus_[i].index) == a.index : gpus_[i].uuid == a.uuid)
          found = i;
      if (found == gpus_.size())
        throw AllocationError(who + ": its " + std::string(k8s::kGpuAssignmentAnnotation) +
                              " names GPU " +
                              (a.uuid.empty() ? "index " + std::to_string(a.index) : a.uuid) +
                              ", which this node does not share");
      add(found, InterposerDeviceCaps{.memory_mib = a.memory_mib, .sm_percent = a.cores});
    }
    return out;
  }
  // No annotation: the pod's requests (HAMi's nvidia.com/gpumem, -percentage, gpucores) on the
  // GPUs the kubelet's IDs belong to.
  for (const Share& s : shares) {
    const DetectedGpu& g = gpus_[s.gpu];
    int64_t memory = pod.memory_mib;
    if (memory <= 0 && pod.memory_percent > 0)
      memory = static_cast<int64_t>((g.memory_bytes >> 20) *
                                    static_cast<uint64_t>(pod.memory_percent) / 100);
    add(s.gpu, InterposerDeviceCaps{.memory_mib = memory, .sm_percent = pod.cores});
  }
  return out;
}

void InterposerShareResource::write_preload_file() const {
  const std::lock_guard lock(preload_mutex_);
  if (preload_written_) return;
  const std::string path = preload_host_path();
  const std::string content = config_.container_library + "\n";
  try {
    // No link followed anywhere in hostPreloadDir (host_files.h): a folder that is a link, or
    // lies under one, is refused with nothing written through it.
    const HostFolder dir = HostFolder::open(config_.host_preload_dir, {.create = true});
    // A file already there is ours to replace only when it is what we write: one line naming
    // the interposer library (another containerLibrary). Anything else (a host's own
    // /etc/ld.so.preload, a FIFO, a link, a large file) is left alone and the allocation refused.
    const std::optional<std::string> have = dir.read_file(kPreloadFile, kMaxPreloadFileBytes);
    if (have == content) {
      preload_written_ = true;
      return;
    }
    if (have && !is_interposer_preload(*have))
      throw AllocationError(path +
                            " exists and is not an ld.so.preload slicelab wrote (one line naming "
                            "libslicelab-interposer.so); not replaced: check "
                            "slicelab.interposer.hostPreloadDir");
    // Written aside under a fresh name (O_EXCL: a file already there under any name is never
    // touched) and renamed into place: a container starting meanwhile reads the old file or the
    // new one, never a partial one. 0644: the container's loader reads it as any uid.
    const auto existing =
        have ? HostFolder::Existing::kReplace : HostFolder::Existing::kMustBeAbsent;
    if (!dir.write_file(kPreloadFile, content, 0644, existing))
      throw AllocationError(path + " appeared while the plugin wrote its own; not replaced");
  } catch (const HostPathError& e) {
    throw AllocationError(std::string(e.what()) + " (slicelab.interposer.hostPreloadDir); " +
                          kPreloadFile + " not written");
  }
  preload_written_ = true;
}

ContainerAllocation InterposerShareResource::common_edits() const {
  ContainerAllocation a;
  a.mounts.push_back(Mount{.container_path = config_.container_library,
                           .host_path = config_.host_library,
                           .read_only = true});
  if (config_.preload_via_mount) {
    a.mounts.push_back(Mount{.container_path = "/etc/ld.so.preload",
                             .host_path = preload_host_path(),
                             .read_only = true});
  } else {
    a.envs["LD_PRELOAD"] = config_.container_library;
  }
  return a;
}

// The region folder is mounted into one container only, but that container's processes may run
// under any uid (runAsUser, images with their own users) that the kubelet does not tell us: the
// folder is 01777, so each can create its region file, and the sticky bit keeps one uid from
// removing or replacing another's file. The interposer itself refuses a region file that is not
// its uid's (or the SLICELAB_REGION_GROUP's) and 0600/0660. Host users are kept out by the root
// folder, created 0700 (an existing root that any user may write without the sticky bit is
// refused: they could swap a container's folder for a link).
std::string InterposerShareResource::make_region_folder(const PendingPod& pod) {
  const std::string& root = config_.host_region_root;
  try {
    // No link followed anywhere in the root's path (host_files.h).
    const HostFolder dir = HostFolder::open(root, {.create = true, .mode = 0700});
    const struct stat st = dir.status();
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
      throw AllocationError(root +
                            " (slicelab.interposer.hostRegionRoot) is writable by every user "
                            "without the sticky bit: anyone could replace a container's folder");
    const std::string base =
        folder_name_of(pod.uid.empty() ? pod.namespace_name + "_" + pod.name : pod.uid);
    return dir.make_fresh_folder(base, 01777, folder_counter_, kMaxFolderTries).path().string();
  } catch (const HostPathError& e) {
    throw AllocationError(std::string(e.what()) + " (slicelab.interposer.hostRegionRoot)");
  }
}

// The caps file sits beside the region folder, not in it: the folder is mounted read-write into
// the container, and a root process there could rewrite a file in it through that mount (a
// read-only mount of the same file does not stop writes through another). Beside it, in the
// root folder (0700, never mounted), the container reaches it only through its read-only mount.
// Written with O_EXCL in a folder opened without following a link (host_files.h): a file or
// link already there (slicelab's or anyone's) is never replaced nor written through.
std::string InterposerShareResource::write_caps_file(const std::string& folder,
                                                     const std::string& text) const {
  const std::filesystem::path p(folder);
  const std::string name = p.filename().string() + ".caps";
  const std::string path = (p.parent_path() / name).string();
  try {
    const HostFolder dir = HostFolder::open(p.parent_path());
    // 0444 whatever the umask: the container's processes read it under any uid.
    if (!dir.write_file(name, text, 0444, HostFolder::Existing::kMustBeAbsent))
      throw AllocationError("cannot create the caps file " + path +
                            ": File exists (not replaced)");
  } catch (const HostPathError& e) {
    throw AllocationError(std::string(e.what()) + " (the caps file)");
  }
  return path;
}

ContainerAllocation InterposerShareResource::allocate(std::span<const std::string> device_ids) {
  const std::lock_guard lock(allocate_mutex_);
  if (device_ids.empty()) throw AllocationError("an allocation of no " + config_.resource);
  std::vector<Share> shares;
  for (const std::string& id : device_ids) {
    const auto s = parse_id(id);
    if (!s)
      throw AllocationError("invalid allocation request for '" + config_.resource +
                            "': unknown device: " + id);
    shares.push_back(*s);
  }
  std::optional<PendingPod> pod;
  try {
    pod = pods_.pending_pod(config_.resource, static_cast<int>(device_ids.size()));
  } catch (const AllocationError&) {
    throw;
  } catch (const std::exception& e) {
    throw AllocationError("cannot look up the pod these " + config_.resource +
                          " shares are for: " + e.what());
  }
  if (!pod)
    throw AllocationError("no pending pod on this node asks for " +
                          std::to_string(device_ids.size()) + " " + config_.resource +
                          " device(s): an interposer share takes its caps from the pod (" +
                          std::string(k8s::kGpuAssignmentAnnotation) +
                          ", else nvidia.com/gpumem and nvidia.com/gpucores)");
  const std::vector<Visible> visible = visible_devices(*pod, device_ids, shares);

  // The file the preload mount (in the answer or in the CDI spec) names exists before any
  // container that mounts it starts.
  if (config_.preload_via_mount) write_preload_file();
  ContainerAllocation a = common_edits();
  if (cdi_) {
    // The spec holds the library and preload edits; only what depends on the pod stays here.
    a.mounts.clear();
    a.envs.clear();
    for (const std::string& id : device_ids) a.cdi_devices.push_back(cdi_kind_ + "=" + id);
  }
  std::string uuids;
  std::vector<InterposerDeviceCaps> caps;
  for (const Visible& v : visible) {
    uuids += (uuids.empty() ? "" : ",") + gpus_[v.gpu].uuid;
    caps.push_back(v.caps);
  }
  a.envs["NVIDIA_VISIBLE_DEVICES"] = uuids;
  a.envs["CUDA_VISIBLE_DEVICES"] = uuids;
  // UUIDs in CUDA_VISIBLE_DEVICES already fix CUDA's numbering (listed order); the order
  // variable keeps tools that enumerate without it (nvidia-smi's order) the same.
  a.envs["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID";
  const std::string region =
      (std::filesystem::path(config_.container_region_dir) / kRegionFile).string();
  set_interposer_environment(a.envs, std::span<const InterposerDeviceCaps>(caps), region);
  std::string caps_text;
  try {
    caps_text = interposer_caps_file_text(caps, region);
  } catch (const std::invalid_argument& e) {
    throw AllocationError("pod " + pod->namespace_name + "/" + pod->name + ": " + e.what());
  }
  const std::string folder = make_region_folder(*pod);
  a.mounts.push_back(Mount{
      .container_path = config_.container_region_dir, .host_path = folder, .read_only = false});
  // The caps the interposer takes: the environment above is a fallback a process can change.
  a.mounts.push_back(Mount{.container_path = interposer::kCapsFilePath,
                           .host_path = write_caps_file(folder, caps_text),
                           .read_only = true});
  try {
    pods_.mark_allocated(*pod);
  } catch (const std::exception& e) {
    // Unmarked, the next Allocate would find this pod again and hand its caps to another.
    throw AllocationError("pod " + pod->namespace_name + "/" + pod->name +
                          " could not be marked allocated: " + e.what());
  }
  return a;
}

std::vector<CdiDeviceEdits> InterposerShareResource::cdi_devices() const {
  // The region folder is made per container by Allocate, so it is not in the spec; nor is
  // anything written here (`cdi generate` writes the spec and nothing else).
  const ContainerAllocation edits = common_edits();
  std::vector<CdiDeviceEdits> out;
  for (const AdvertisedDevice& d : devices()) out.push_back(CdiDeviceEdits{d.id, edits});
  return out;
}

}  // namespace

std::unique_ptr<ResourcePlugin> make_interposer_share_resource(const NodePluginConfig& config,
                                                               std::span<const DetectedGpu> gpus,
                                                               const DeviceHealth& health,
                                                               PodSource& pods) {
  return std::make_unique<InterposerShareResource>(config, gpus, health, pods);
}

}  // namespace slicelab::device_plugin
