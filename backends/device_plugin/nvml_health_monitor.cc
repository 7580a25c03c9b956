#include "backends/device_plugin/nvml_health_monitor.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

#include "backends/interposer/nvml_subset.h"

namespace slicelab::device_plugin {
namespace {

// The NVML entry points the monitor uses, looked up in the dlopened library; any but the first
// three may be missing (an old driver), which only narrows what is watched.
struct NvmlApi {
  void* lib = nullptr;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  nvmlReturn_t (*handle_by_index)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*handle_by_uuid)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*uuid)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*gpu_instance_id)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*compute_instance_id)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*set_create)(nvmlEventSet_t*) = nullptr;
  nvmlReturn_t (*set_free)(nvmlEventSet_t) = nullptr;
  nvmlReturn_t (*set_wait)(nvmlEventSet_t, nvmlEventData_t*, unsigned) = nullptr;
  nvmlReturn_t (*supported_events)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*register_events)(nvmlDevice_t, unsigned long long, nvmlEventSet_t) = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;

  template <typename Fn>
  void load(Fn& fn, const char* name) {
    fn = reinterpret_cast<Fn>(dlsym(lib, name));
  }
  bool events() const { return set_create && set_free && set_wait && register_events; }
  std::string error(nvmlReturn_t r) const {
    const char* s = error_string ? error_string(r) : nullptr;
    return s ? fmt::format("{} ({})", r, s) : std::to_string(r);
  }
};

struct WatchedMig {
  std::string uuid;
  unsigned gpu_instance = kNvmlNoInstance;
  unsigned compute_instance = kNvmlNoInstance;
};

struct WatchedGpu {
  unsigned index = 0;
  std::string uuid;
  nvmlDevice_t handle = nullptr;
  std::vector<WatchedMig> migs;
  bool lost = false;  // marked "lost" for good: no longer polled
};

// A pre-R470 MIG UUID carries its placement: "MIG-GPU-<parent uuid>/<gi>/<ci>".
bool legacy_mig_placement(const std::string& uuid, unsigned& gi, unsigned& ci) {
  if (!uuid.starts_with("MIG-GPU-")) return false;
  const size_t a = uuid.find('/');
  const size_t b = a == std::string::npos ? a : uuid.find('/', a + 1);
  if (b == std::string::npos) return false;
  char* end = nullptr;
  const unsigned long g = std::strtoul(uuid.c_str() + a + 1, &end, 10);
  if (end != uuid.c_str() + b || b == a + 1) return false;
  const unsigned long c = std::strtoul(uuid.c_str() + b + 1, &end, 10);
  if (*end != 0 || b + 1 == uuid.size()) return false;
  gi = static_cast<unsigned>(g);
  ci = static_cast<unsigned>(c);
  return true;
}

}  // namespace

struct NvmlHealthMonitor::Watch {
  DeviceHealth& health;
  std::vector<DetectedGpu> detected;
  NvmlHealthOptions options;
  NvmlApi api;
  bool initialized = false;
  bool have_set = false;
  nvmlEventSet_t set{};
  std::vector<WatchedGpu> gpus;  // the thread's own once it runs
  std::thread thread;

  mutable std::mutex mu;
  std::condition_variable cv;
  bool stopping = false;
  bool active = false;
  std::string problem;

  Watch(DeviceHealth& h, std::span<const DetectedGpu> g, NvmlHealthOptions o)
      : health(h), detected(g.begin(), g.end()), options(std::move(o)) {}

  void log(const std::string& line) const {
    if (options.log)
      options.log(line);
    else
      std::cerr << "slicelab device-plugin: health: " << line << '\n';
  }
  bool should_stop() const {
    const std::lock_guard lock(mu);
    return stopping;
  }
  // Waits `d` or until stop().
  void pause(std::chrono::milliseconds d) {
    std::unique_lock lock(mu);
    cv.wait_for(lock, d, [&] { return stopping; });
  }

  bool open(std::string& why);
  nvmlReturn_t lookup(const WatchedGpu& g, nvmlDevice_t* h) const;
  std::string uuid_of_index(unsigned index) const {
    nvmlDevice_t h = nullptr;
    char buf[96] = {};
    if (!api.uuid || api.handle_by_index(index, &h) != NVML_SUCCESS ||
        api.uuid(h, buf, sizeof buf) != NVML_SUCCESS)
      return {};
    return buf;
  }
  void place_migs(WatchedGpu& g, const DetectedGpu& d);
  void register_gpu(WatchedGpu& g);
  void run();
  void on_event(const nvmlEventData_t& e);
  void poll();
  void mark(WatchedGpu& g, const std::string& reason);
  void mark_all(const std::string& reason);
  void close();
};

bool NvmlHealthMonitor::Watch::open(std::string& why) {
  const char* env = std::getenv("SLICELAB_NVML_LIBRARY");
  const std::string path = !options.library.empty() ? options.library
                           : (env && *env)          ? std::string(env)
                                                    : std::string("libnvidia-ml.so.1");
  api.lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!api.lib) {
    const char* err = dlerror();
    why = fmt::format(
        "GPU health checks off: cannot open NVML {} ({}); every GPU is reported healthy", path,
        err ? err : "not found");
    return false;
  }
  api.load(api.init, "nvmlInit_v2");
  api.load(api.shutdown, "nvmlShutdown");
  api.load(api.handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
  api.load(api.handle_by_uuid, "nvmlDeviceGetHandleByUUID");
  api.load(api.uuid, "nvmlDeviceGetUUID");
  api.load(api.memory, "nvmlDeviceGetMemoryInfo");
  api.load(api.gpu_instance_id, "nvmlDeviceGetGpuInstanceId");
  api.load(api.compute_instance_id, "nvmlDeviceGetComputeInstanceId");
  api.load(api.set_create, "nvmlEventSetCreate");
  api.load(api.set_free, "nvmlEventSetFree");
  api.load(api.set_wait, "nvmlEventSetWait_v2");
  api.load(api.supported_events, "nvmlDeviceGetSupportedEventTypes");
  api.load(api.register_events, "nvmlDeviceRegisterEvents");
  api.load(api.error_string, "nvmlErrorString");
  if (!api.init || !api.shutdown || !api.handle_by_index) {
    why = fmt::format(
        "GPU health checks off: {} is not a usable NVML library (nvmlInit_v2 and "
        "friends missing); every GPU is reported healthy",
        path);
    return false;
  }
  if (const nvmlReturn_t r = api.init(); r != NVML_SUCCESS) {
    why =
        fmt::format("GPU health checks off: nvmlInit_v2 returned {}; every GPU is reported healthy",
                    api.error(r));
    return false;
  }
  initialized = true;
  return true;
}

nvmlReturn_t NvmlHealthMonitor::Watch::lookup(const WatchedGpu& g, nvmlDevice_t* h) const {
  if (!g.uuid.empty() && api.handle_by_uuid) return api.handle_by_uuid(g.uuid.c_str(), h);
  return api.handle_by_index(g.index, h);
}

// Each MIG instance's GPU and compute instance ids, which XID events carry: from its handle, or
// from a legacy UUID. An instance whose placement cannot be had is marked unhealthy, as NVIDIA
// does (an XID on it could not be told apart).
void NvmlHealthMonitor::Watch::place_migs(WatchedGpu& g, const DetectedGpu& d) {
  for (const MigInstance& m : d.mig_instances) {
    if (m.uuid.empty()) continue;
    WatchedMig w;
    w.uuid = m.uuid;
    nvmlDevice_t h = nullptr;
    const bool by_handle = api.handle_by_uuid && api.gpu_instance_id && api.compute_instance_id &&
                           api.handle_by_uuid(m.uuid.c_str(), &h) == NVML_SUCCESS &&
                           api.gpu_instance_id(h, &w.gpu_instance) == NVML_SUCCESS &&
                           api.compute_instance_id(h, &w.compute_instance) == NVML_SUCCESS;
    if (!by_handle && !legacy_mig_placement(m.uuid, w.gpu_instance, w.compute_instance)) {
      log(fmt::format("cannot tell the GPU and compute instance of {}; marking it unhealthy",
                      m.uuid));
      health.mark_unhealthy(m.uuid, "unknown MIG placement");
      continue;
    }
    g.migs.push_back(std::move(w));
  }
}

void NvmlHealthMonitor::Watch::register_gpu(WatchedGpu& g) {
  nvmlDevice_t h = nullptr;
  if (const nvmlReturn_t r = lookup(g, &h); r != NVML_SUCCESS) {
    log(fmt::format("no NVML handle for GPU {} ({}): {}; marking it lost", g.index, g.uuid,
                    api.error(r)));
    mark(g, "lost");
    return;
  }
  g.handle = h;
  if (!have_set) return;
  unsigned long long supported = 0;
  nvmlReturn_t r =
      api.supported_events ? api.supported_events(h, &supported) : NVML_ERROR_NOT_SUPPORTED;
  const unsigned long long wanted = kNvmlEventTypeXidCriticalError |
                                    kNvmlEventTypeDoubleBitEccError |
                                    kNvmlEventTypeSingleBitEccError;
  if (r == NVML_SUCCESS && (supported & kNvmlEventTypeXidCriticalError) == 0)
    r = NVML_ERROR_NOT_SUPPORTED;
  if (r == NVML_SUCCESS) r = api.register_events(h, wanted & supported, set);
  if (r == NVML_SUCCESS) return;
  if (r == NVML_ERROR_NOT_SUPPORTED) {
    log(fmt::format("GPU {} ({}) does not report XID events; only polled for being lost", g.index,
                    g.uuid));
  } else if (r == NVML_ERROR_GPU_IS_LOST) {
    mark(g, "lost");
  } else {
    log(fmt::format("registering GPU {} ({}) for events failed: {}; marking it unhealthy", g.index,
                    g.uuid, api.error(r)));
    mark(g, fmt::format("NVML error {}", r));
  }
}

void NvmlHealthMonitor::Watch::mark(WatchedGpu& g, const std::string& reason) {
  if (g.lost) return;  // "lost" says the most; nothing replaces it
  g.lost = reason == "lost";
  // Instances first: whoever sees the GPU unhealthy then sees its instances so too.
  for (const WatchedMig& m : g.migs) health.mark_unhealthy(m.uuid, reason);
  health.mark_unhealthy(g.uuid, reason);
}

void NvmlHealthMonitor::Watch::mark_all(const std::string& reason) {
  for (WatchedGpu& g : gpus) mark(g, reason);
}

void NvmlHealthMonitor::Watch::on_event(const nvmlEventData_t& e) {
  // ECC events are registered but not acted on, as in NVIDIA's plugin.
  if (e.eventType != kNvmlEventTypeXidCriticalError) return;
  if (options.xids.skipped(e.eventData)) {
    log(fmt::format("skipping XID {} (an application error or disabled)", e.eventData));
    return;
  }
  const std::string reason = fmt::format("XID {}", e.eventData);
  WatchedGpu* gpu = nullptr;
  for (WatchedGpu& g : gpus)
    if (g.handle == e.device) gpu = &g;
  if (!gpu) {
    char buf[96] = {};
    if (!api.uuid || api.uuid(e.device, buf, sizeof buf) != NVML_SUCCESS) {
      log(fmt::format("{} on a GPU NVML cannot name; marking every GPU unhealthy", reason));
      mark_all(reason);
      return;
    }
    for (WatchedGpu& g : gpus)
      if (g.uuid == buf) gpu = &g;
    if (!gpu) {
      log(fmt::format("ignoring {} on {}: not a watched GPU", reason, buf));
      return;
    }
  }
  // An XID attributable to a MIG instance makes only that instance unhealthy.
  if (e.gpuInstanceId != kNvmlNoInstance && !gpu->migs.empty()) {
    bool any = false;
    for (const WatchedMig& m : gpu->migs) {
      if (m.gpu_instance != e.gpuInstanceId) continue;
      if (e.computeInstanceId != kNvmlNoInstance && m.compute_instance != e.computeInstanceId)
        continue;
      log(fmt::format("{} on {} (GPU {}, gi {}, ci {}); marking it unhealthy", reason, m.uuid,
                      gpu->index, m.gpu_instance, m.compute_instance));
      health.mark_unhealthy(m.uuid, reason);
      any = true;
    }
    if (!any)
      log(fmt::format("ignoring {} on GPU {} gi {} ci {}: no watched MIG instance", reason,
                      gpu->index, e.gpuInstanceId, e.computeInstanceId));
    return;
  }
  log(fmt::format("{} on GPU {} ({}); marking it unhealthy", reason, gpu->index, gpu->uuid));
  mark(*gpu, reason);
}

// A GPU that fell off the bus may send no event at all: ask NVML about it directly.
void NvmlHealthMonitor::Watch::poll() {
  for (WatchedGpu& g : gpus) {
    if (g.lost || !g.handle) continue;
    nvmlMemory_t m{};
    nvmlReturn_t r = api.memory ? api.memory(g.handle, &m) : NVML_SUCCESS;
    if (r != NVML_ERROR_GPU_IS_LOST) {
      nvmlDevice_t h = nullptr;
      r = lookup(g, &h);
    }
    if (r == NVML_ERROR_GPU_IS_LOST || r == NVML_ERROR_NOT_FOUND) {
      log(fmt::format("GPU {} ({}) is lost: {}; marking it unhealthy", g.index, g.uuid,
                      api.error(r)));
      mark(g, "lost");
    }
  }
}

void NvmlHealthMonitor::Watch::run() {
  try {
    const auto timeout = options.wait_timeout;
    const auto timeout_ms = static_cast<unsigned>(std::max<int64_t>(1, timeout.count()));
    auto next_poll = std::chrono::steady_clock::now();
    while (!should_stop()) {
      if (have_set) {
        nvmlEventData_t e{};
        const nvmlReturn_t r = api.set_wait(set, &e, timeout_ms);
        if (should_stop()) break;
        if (r == NVML_SUCCESS) {
          on_event(e);
        } else if (r != NVML_ERROR_TIMEOUT) {
          // As NVIDIA: when events can no longer be had, no GPU can be trusted.
          log(fmt::format("waiting for NVML events failed: {}; marking every GPU unhealthy",
                          api.error(r)));
          mark_all(r == NVML_ERROR_GPU_IS_LOST ? "lost" : fmt::format("NVML error {}", r));
          pause(timeout);
        }
      } else {
        pause(timeout);
      }
      if (const auto now = std::chrono::steady_clock::now(); now >= next_poll) {
        poll();
        next_poll = now + timeout;
      }
    }
  } catch (const std::exception& ex) {
    log(fmt::format("health monitor stopped: {}", ex.what()));
  } catch (...) {
    log("health monitor stopped on an unknown error");
  }
}

void NvmlHealthMonitor::Watch::close() {
  if (have_set) api.set_free(set);
  have_set = false;
  if (initialized) api.shutdown();
  initialized = false;
  if (api.lib) dlclose(api.lib);
  api.lib = nullptr;
}

NvmlHealthOptions nvml_health_options_from_environment() {
  NvmlHealthOptions o;
  o.xids = XidFilter::from_environment();
  o.disabled = o.xids.all_disabled();
  return o;
}

NvmlHealthMonitor::NvmlHealthMonitor(DeviceHealth& health, std::span<const DetectedGpu> gpus,
                                     NvmlHealthOptions options)
    : watch_(std::make_unique<Watch>(health, gpus, std::move(options))) {}

NvmlHealthMonitor::~NvmlHealthMonitor() {
  stop();
}

bool NvmlHealthMonitor::start() {
  Watch& w = *watch_;
  if (w.thread.joinable() || active()) return active();
  std::string why;
  try {
    if (w.options.disabled || w.options.xids.all_disabled()) {
      why = "GPU health checks disabled (DP_DISABLE_HEALTHCHECKS); every GPU is reported healthy";
    } else if (w.open(why)) {
      w.log(fmt::format("ignoring XIDs {}", w.options.xids.describe()));
      if (w.api.events()) {
        const nvmlReturn_t r = w.api.set_create(&w.set);
        w.have_set = r == NVML_SUCCESS;
        if (!w.have_set)
          w.log(fmt::format("no NVML event set ({}): GPUs are only polled for being lost",
                            w.api.error(r)));
      } else {
        w.log("this NVML has no event functions: GPUs are only polled for being lost");
      }
      for (const DetectedGpu& d : w.detected) {
        WatchedGpu g;
        g.index = d.index;
        g.uuid = d.uuid;
        if (g.uuid.empty()) g.uuid = w.uuid_of_index(d.index);
        if (g.uuid.empty()) {  // DeviceHealth names GPUs by UUID
          w.log(fmt::format("GPU {} has no UUID: not watched", d.index));
          continue;
        }
        w.place_migs(g, d);
        w.register_gpu(g);
        w.gpus.push_back(std::move(g));
      }
      {
        const std::lock_guard lock(w.mu);
        w.active = true;
        w.stopping = false;
        w.problem.clear();
      }
      w.thread = std::thread([&w] { w.run(); });
      return true;
    }
  } catch (const std::exception& ex) {
    why = fmt::format("GPU health checks off: {}", ex.what());
  }
  w.close();
  w.log(why);
  const std::lock_guard lock(w.mu);
  w.problem = why;
  return false;
}

void NvmlHealthMonitor::stop() {
  Watch& w = *watch_;
  {
    const std::lock_guard lock(w.mu);
    w.stopping = true;
    w.active = false;
  }
  w.cv.notify_all();
  if (w.thread.joinable()) w.thread.join();
  w.close();
}

bool NvmlHealthMonitor::active() const {
  const std::lock_guard lock(watch_->mu);
  return watch_->active;
}

std::string NvmlHealthMonitor::problem() const {
  const std::lock_guard lock(watch_->mu);
  return watch_->problem;
}

}  // namespace slicelab::device_plugin
