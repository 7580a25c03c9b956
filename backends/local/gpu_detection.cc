#include "backends/local/gpu_detection.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>

namespace slicelab {
namespace {

// The NVML ABI subset used here (nvml.h is not installed; these are its documented types).
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
struct nvmlMemory_t {
  unsigned long long total, free, used;
};
constexpr int kSuccess = 0;

template <typename Fn>
Fn sym(void* lib, const char* name) {
  return reinterpret_cast<Fn>(dlsym(lib, name));
}

// Closes the library when detection is done: handles are not kept past this call.
struct Library {
  void* handle = nullptr;
  ~Library() {
    if (handle) dlclose(handle);
  }
};

}  // namespace

GpuDetection detect_gpus(const std::string& override_path) {
  GpuDetection d;
  const char* env = std::getenv("SLICELAB_NVML_LIBRARY");
  d.library = !override_path.empty() ? override_path
              : (env && *env)        ? std::string(env)
                                     : std::string("libnvidia-ml.so.1");
  Library lib{dlopen(d.library.c_str(), RTLD_NOW | RTLD_LOCAL)};
  if (!lib.handle) {
    const char* why = dlerror();
    d.problem = fmt::format(
        "no NVIDIA driver: cannot open {} ({}); this machine has no GPU driver installed, or set "
        "SLICELAB_NVML_LIBRARY to the library's path",
        d.library, why ? why : "not found");
    return d;
  }
  auto init = sym<nvmlReturn_t (*)()>(lib.handle, "nvmlInit_v2");
  auto shutdown = sym<nvmlReturn_t (*)()>(lib.handle, "nvmlShutdown");
  auto count_fn = sym<nvmlReturn_t (*)(unsigned*)>(lib.handle, "nvmlDeviceGetCount_v2");
  auto handle_fn =
      sym<nvmlReturn_t (*)(unsigned, nvmlDevice_t*)>(lib.handle, "nvmlDeviceGetHandleByIndex_v2");
  auto memory_fn =
      sym<nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*)>(lib.handle, "nvmlDeviceGetMemoryInfo");
  if (!init || !count_fn || !handle_fn || !memory_fn) {
    d.problem =
        fmt::format("{} is not a usable NVML library (nvmlInit_v2 and friends missing)", d.library);
    return d;
  }
  // Optional entry points: older drivers or the test fake may lack them.
  auto name_fn =
      sym<nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned)>(lib.handle, "nvmlDeviceGetName");
  auto uuid_fn =
      sym<nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned)>(lib.handle, "nvmlDeviceGetUUID");
  auto mig_mode_fn =
      sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned*, unsigned*)>(lib.handle, "nvmlDeviceGetMigMode");
  auto mig_max_fn =
      sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned*)>(lib.handle, "nvmlDeviceGetMaxMigDeviceCount");
  auto mig_handle_fn = sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned, nvmlDevice_t*)>(
      lib.handle, "nvmlDeviceGetMigDeviceHandleByIndex");

  if (const nvmlReturn_t r = init(); r != kSuccess) {
    d.problem = fmt::format(
        "no GPU: NVML could not start (nvmlInit_v2 returned {}): the driver is not loaded or "
        "there is no NVIDIA GPU",
        r);
    return d;
  }
  unsigned n = 0;
  if (count_fn(&n) != kSuccess || n == 0) {
    d.problem = "no GPU: NVML reports no NVIDIA GPU on this machine";
    if (shutdown) shutdown();
    return d;
  }
  for (unsigned i = 0; i < n; ++i) {
    nvmlDevice_t h = nullptr;
    if (handle_fn(i, &h) != kSuccess) continue;  // e.g. a GPU lost to an Xid: skip it
    DetectedGpu g;
    g.index = i;
    char buf[96] = {};
    g.name = name_fn && name_fn(h, buf, sizeof buf) == kSuccess ? std::string(buf)
                                                                : fmt::format("GPU {}", i);
    char ubuf[96] = {};
    g.uuid = uuid_fn && uuid_fn(h, ubuf, sizeof ubuf) == kSuccess ? std::string(ubuf) : "";
    nvmlMemory_t m{};
    if (memory_fn(h, &m) == kSuccess) g.memory_bytes = m.total;
    unsigned current = 0, pending = 0;
    g.mig_enabled = mig_mode_fn && mig_mode_fn(h, &current, &pending) == kSuccess && current == 1;
    unsigned max_mig = 0;
    if (g.mig_enabled && mig_max_fn && mig_handle_fn && mig_max_fn(h, &max_mig) == kSuccess) {
      for (unsigned k = 0; k < max_mig; ++k) {
        nvmlDevice_t mh = nullptr;
        if (mig_handle_fn(h, k, &mh) != kSuccess) continue;  // slot without an instance
        MigInstance mi;
        char mbuf[96] = {};
        if (uuid_fn && uuid_fn(mh, mbuf, sizeof mbuf) == kSuccess) mi.uuid = mbuf;
        // NVML names an instance "<GPU name> MIG 1g.10gb".
        char nbuf[96] = {};
        if (name_fn && name_fn(mh, nbuf, sizeof nbuf) == kSuccess) {
          const std::string name = nbuf;
          if (const size_t at = name.rfind("MIG "); at != std::string::npos)
            mi.profile = name.substr(at + 4);
        }
        nvmlMemory_t mm{};
        if (memory_fn(mh, &mm) == kSuccess) mi.memory_bytes = mm.total;
        g.mig_instances.push_back(std::move(mi));
      }
    }
    d.gpus.push_back(std::move(g));
  }
  if (shutdown) shutdown();
  if (d.gpus.empty()) d.problem = "no GPU: NVML lists GPUs but none could be opened";
  return d;
}

}  // namespace slicelab
