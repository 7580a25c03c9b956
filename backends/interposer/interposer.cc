// libslicelab-interposer.so: loaded with LD_PRELOAD, it stands between a program and the CUDA
// driver and NVML, counting every allocation path against a per-container memory cap and pacing
// every launch path through the shared compute limiter.
#include <cuda.h>
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backends/interposer/array_bytes.h"
#include "backends/interposer/caps_file.h"
#include "backends/interposer/config.h"
#include "backends/interposer/nvml_subset.h"
#include "backends/interposer/overhead_test_delay.h"
#include "backends/interposer/shared_region.h"
#include "limiter/compute_limiter.h"

#include "backends/interposer/hooked_functions.h"

namespace slicelab::interposer {

// The real dlsym (dlsym_hook.cc, built without sanitizer instrumentation).
using DlsymFn = void* (*)(void*, const char*);
DlsymFn real_dlsym();

namespace {

// ---- the driver functions we call or hook (SLICELAB_REAL_FUNCTIONS: hooked_functions.h) ----
// clang-format off  (one entry per line; clang-format mangles X-macro lists)
#define SLICELAB_HELPER_FUNCTIONS(X) \
  X(cuCtxGetDevice)                  \
  X(cuCtxGetCurrent)                 \
  X(cuEventCreate)                   \
  X(cuEventRecord)                   \
  X(cuEventRecord_ptsz)              \
  X(cuEventQuery)                    \
  X(cuMemGetAddressRange_v2)         \
  X(cuEventSynchronize)
// clang-format on

struct Real {
// `name` is a declarator here; parentheses around it would not compile.
#define DECLARE(name) decltype(&::name) name = nullptr;  // NOLINT(bugprone-macro-parentheses)
  SLICELAB_REAL_FUNCTIONS(DECLARE)
  SLICELAB_HELPER_FUNCTIONS(DECLARE)
#undef DECLARE
  decltype(&::cuEventElapsedTime_v2) cuEventElapsedTime = nullptr;
  nvmlReturn_t (*nvmlDeviceGetIndex)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetMemoryInfo)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetMemoryInfo_v2)(nvmlDevice_t, nvmlMemory_v2_t*) = nullptr;
  nvmlReturn_t (*nvmlInit_v2)() = nullptr;
  nvmlReturn_t (*nvmlDeviceGetHandleByIndex_v2)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetComputeRunningProcesses_v3)(nvmlDevice_t, unsigned*,
                                                          nvmlProcessInfo_t*) = nullptr;
};

enum class Kind : uint8_t { kPointer, kHandle, kImported, kArray };
struct Tracked {
  uint64_t bytes;
  int device;
};

int64_t real_now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}
void real_sleep(int64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  while (nanosleep(&ts, &ts) == -1) {
  }
}

struct State {
  Config cfg;
  Real real;
  void* libcuda = nullptr;
  std::unique_ptr<SharedRegion> region;
  limiter::ComputeLimiter limiter[kMaxDevices];
  int64_t (*now)() = real_now;
  void (*sleep)(int64_t) = real_sleep;
  std::mutex mu;  // guards `tracked`: allocation paths only, never launches
  std::unordered_map<uint64_t, Tracked> tracked[4];
  std::once_flag nvml_once;
  std::atomic<int64_t> next_reconcile[kMaxDevices] = {};
};

std::atomic<State*> g_state{nullptr};
std::once_flag g_once;

void log_line(const std::string& s) {
  std::fprintf(stderr, "slicelab-interposer: %s\n", s.c_str());
}

// The interposer's variables (SLICELAB_*, CUDA_DEVICE_*) as the process started, taken when the
// library loads: a process that edits its environment before its first CUDA call (unsetenv,
// setenv) does not change its caps, nor where its caps file is.
using StartEnvironment = std::vector<std::pair<std::string, std::string>>;
std::once_flag g_env_once;
StartEnvironment* g_start_env = nullptr;  // never freed: read until the process ends

void capture_environment() {
  std::call_once(g_env_once, [] {
    auto* vars = new StartEnvironment;
    for (char** e = environ; e && *e; ++e)
      if (const char* eq = std::strchr(*e, '='); eq && (std::strncmp(*e, "SLICELAB_", 9) == 0 ||
                                                        std::strncmp(*e, "CUDA_DEVICE_", 12) == 0))
        vars->emplace_back(std::string(*e, static_cast<size_t>(eq - *e)), std::string(eq + 1));
    g_start_env = vars;
  });
}

// Before main (and before any constructor of the program's own).
__attribute__((constructor)) void capture_environment_at_load() {
  capture_environment();
}

void init_state() {
  auto* s = new State;
  capture_environment();
  const StartEnvironment& vars = *g_start_env;
  // The names the readers check: SLICELAB_* ones that are not ours, and per-device caps (ours
  // and HAMi's) beyond the table.
  std::vector<std::string> names;
  for (const auto& [k, v] : vars) names.push_back(k);
  const Getenv lookup = [&vars](const char* n) -> const char* {
    for (const auto& [k, v] : vars)
      if (k == n) return v.c_str();
    return nullptr;
  };
  s->cfg = load_caps(locate_caps(kCapsFilePath, lookup("SLICELAB_CAPS_FILE")), lookup, names);
  for (const auto& w : s->cfg.warnings) log_line(w);
  if (!s->cfg.fail_closed.empty()) log_line(fail_closed_message(s->cfg));
  s->libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!s->libcuda) log_line(std::string("cannot load libcuda.so.1: ") + dlerror());
  auto sym = [&](const char* n) { return s->libcuda ? real_dlsym()(s->libcuda, n) : nullptr; };
#define RESOLVE(name) s->real.name = reinterpret_cast<decltype(s->real.name)>(sym(#name));
  SLICELAB_REAL_FUNCTIONS(RESOLVE)
  SLICELAB_HELPER_FUNCTIONS(RESOLVE)
#undef RESOLVE
  s->real.cuEventElapsedTime = reinterpret_cast<decltype(s->real.cuEventElapsedTime)>(
      sym("cuEventElapsedTime_v2") ? sym("cuEventElapsedTime_v2") : sym("cuEventElapsedTime"));
  if (s->cfg.fake_clock) {
    auto now = reinterpret_cast<int64_t (*)()>(sym("slicelab_fake_now_ns"));
    auto sleep = reinterpret_cast<void (*)(int64_t)>(sym("slicelab_fake_sleep_ns"));
    if (now && sleep)
      s->now = now, s->sleep = sleep;
    else
      log_line("SLICELAB_TEST_FAKE_CLOCK=1 but the driver is not the test fake; real clock");
  }
  std::string warning;
  s->region = SharedRegion::open(s->cfg.region_path, s->cfg, &warning);
  if (!warning.empty()) log_line(warning);
  for (int d = 0; d < kMaxDevices; ++d) {
    limiter::ComputeLimiter::Config lc;
    lc.share = s->region->sm_percent(d) / 100.0;  // the container's, or our own lower one
    s->limiter[d].configure(lc);
    // Shared between the container's processes only on the real clock: a test's virtual
    // clock is private to its process.
    if (s->region->shared() && !s->cfg.fake_clock)
      s->limiter[d].bind(&s->region->layout().devices[d].limiter_tat);
  }
  g_state.store(s, std::memory_order_release);
}

inline State& st() {
  State* s = g_state.load(std::memory_order_acquire);
  if (s) [[likely]]
    return *s;
  std::call_once(g_once, init_state);
  return *g_state.load(std::memory_order_acquire);
}

// The current context's device ordinal (any, also beyond the table), or -1 without one.
int current_device(State& s) {
  CUdevice d = -1;
  if (!s.real.cuCtxGetDevice || s.real.cuCtxGetDevice(&d) != CUDA_SUCCESS) return -1;
  return d >= 0 ? d : -1;
}

// A device beyond the table cannot be counted: while a memory cap applies to it, its
// allocations are refused (said once), never let through uncounted. True: refused.
bool refused_beyond_table(State& s, int dev) {
  if (s.region->memory_cap(dev) == UINT64_MAX) return false;
  static std::atomic<bool> said{false};
  if (!said.exchange(true))
    log_line("device " + std::to_string(dev) + " is beyond the " + std::to_string(kMaxDevices) +
             " devices the interposer counts; allocations on it are refused while a memory cap "
             "applies to it");
  return true;
}

// ---- memory ----
void track(State& s, Kind k, uint64_t key, uint64_t bytes, int dev) {
  std::lock_guard<std::mutex> g(s.mu);
  s.tracked[static_cast<int>(k)][key] = Tracked{bytes, dev};
}
bool untrack(State& s, Kind k, uint64_t key, Tracked* out) {
  std::lock_guard<std::mutex> g(s.mu);
  auto& m = s.tracked[static_cast<int>(k)];
  auto it = m.find(key);
  if (it == m.end()) return false;
  *out = it->second;
  m.erase(it);
  return true;
}

// Reserve, call the driver, then commit or cancel: the reservation keeps two concurrent
// allocators (threads or processes) from both passing a check that only one of them fits.
void maybe_reconcile(State& s, int dev);

template <class Call, class Key>
CUresult counted(int dev, uint64_t bytes, Kind kind, Call&& call, Key&& key) {
  State& s = st();
  if (dev < 0) return call();  // no context: the driver reports the error itself
  if (dev >= kMaxDevices) return refused_beyond_table(s, dev) ? CUDA_ERROR_OUT_OF_MEMORY : call();
  maybe_reconcile(s, dev);
  if (!s.region->reserve(dev, bytes)) return CUDA_ERROR_OUT_OF_MEMORY;
  const CUresult r = call();
  if (r != CUDA_SUCCESS) {
    s.region->cancel(dev, bytes);
    return r;
  }
  s.region->commit(dev, bytes);
  track(s, kind, key(), bytes, dev);
  return r;
}

template <class Call>
CUresult credited(Kind kind, uint64_t key, Call&& call) {
  State& s = st();
  // The entry leaves the table before the driver frees: once freed, the address may come back at
  // once from another thread's allocation, whose entry must not be the one we erase.
  Tracked t{};
  const bool known = untrack(s, kind, key, &t);
  const CUresult r = call();
  if (!known) return r;
  if (r == CUDA_SUCCESS) {
    s.region->release(t.device, t.bytes);
  } else {
    track(s, kind, key, t.bytes, t.device);  // not freed after all
  }
  return r;
}

uint64_t capped_total(State& s, int dev, uint64_t real_total) {
  const uint64_t cap = s.region->memory_cap(dev);
  return cap < real_total ? cap : real_total;
}

// ---- compute ----
struct StreamRef {
  CUstream stream;
  bool ptsz;
};

// Times launches with a pair of CUDA events per ring slot, created once per thread and device.
struct EventProbe {
  State& s;
  CUevent begin_[32] = {};
  CUevent end_[32] = {};
  bool ready = true;
  explicit EventProbe(State& st) : s(st) {
    for (int i = 0; i < 32 && ready; ++i)
      ready = s.real.cuEventCreate(&begin_[i], CU_EVENT_DEFAULT) == CUDA_SUCCESS &&
              s.real.cuEventCreate(&end_[i], CU_EVENT_DEFAULT) == CUDA_SUCCESS;
  }
  int64_t now() { return s.now(); }
  void sleep(int64_t ns) { s.sleep(ns); }
  void record(CUevent e, StreamRef r) {
    if (r.ptsz && s.real.cuEventRecord_ptsz)
      s.real.cuEventRecord_ptsz(e, r.stream);
    else
      s.real.cuEventRecord(e, r.stream);
  }
  void begin(size_t slot, StreamRef r) { record(begin_[slot], r); }
  void end(size_t slot, StreamRef r) { record(end_[slot], r); }
  int64_t elapsed(size_t slot, bool block) {
    if (block)
      s.real.cuEventSynchronize(end_[slot]);
    else if (s.real.cuEventQuery(end_[slot]) != CUDA_SUCCESS)
      return -1;
    float ms = 0;
    if (s.real.cuEventElapsedTime(&ms, begin_[slot], end_[slot]) != CUDA_SUCCESS) return 0;
    return static_cast<int64_t>(static_cast<double>(ms) * 1e6);
  }
};

using Pacer = limiter::LaunchPacer<EventProbe>;

// What the launch path reads per thread. Trivial, so that with initial-exec it is one
// instruction away: a thread_local with a constructor or destructor is reached through a guard
// check and __tls_get_addr on every access.
struct ThreadFast {
  CUcontext ctx;
  int dev;
  Pacer* pacer[kMaxDevices];  // owned by the thread's ThreadOwned
  bool exiting;               // ThreadOwned is gone: launches from here on pass unpaced
};
__attribute__((tls_model("initial-exec"))) thread_local ThreadFast t_fast{nullptr, -1, {}, false};

// Owns the thread's probes and pacers; touched only when a pacer is created. Its destructor
// runs at thread exit and clears the fast pointers, so a launch from a later destructor in the
// same thread passes through unpaced rather than use a freed pacer.
struct ThreadOwned {
  std::unique_ptr<EventProbe> probe[kMaxDevices];
  std::unique_ptr<Pacer> pacer[kMaxDevices];
  ThreadOwned() = default;
  ThreadOwned(const ThreadOwned&) = delete;
  ThreadOwned& operator=(const ThreadOwned&) = delete;
  ~ThreadOwned() {
    for (Pacer*& p : t_fast.pacer) p = nullptr;
    t_fast.exiting = true;
  }
};
thread_local ThreadOwned t_owned;

// Slow path: the thread's first paced launch on `dev`. nullptr when events cannot be created.
__attribute__((noinline)) Pacer* make_pacer(State& s, int dev) {
  if (t_fast.exiting) return nullptr;
  ThreadOwned& own = t_owned;
  if (own.probe[dev]) return nullptr;  // tried before: events could not be created
  own.probe[dev] = std::make_unique<EventProbe>(s);
  if (!own.probe[dev]->ready) return nullptr;
  own.pacer[dev] = std::make_unique<Pacer>(s.limiter[dev], *own.probe[dev], s.cfg.measure_every);
  return t_fast.pacer[dev] = own.pacer[dev].get();
}

// The device a launch is paced on, or -1 (unpaced): beyond the table there is no limiter state.
__attribute__((noinline)) int table_device(State& s, int dev) {
  if (dev < kMaxDevices) return dev;
  static std::atomic<bool> said{false};
  if (s.cfg.other.sm_percent < 100 && !said.exchange(true))
    log_line("device " + std::to_string(dev) + " is beyond the " + std::to_string(kMaxDevices) +
             " devices the interposer counts; launches on it are not paced");
  return -1;
}

template <class Launch>
CUresult paced(uint64_t key, StreamRef stream, Launch&& launch) {
  State& s = st();
  ThreadFast& tc = t_fast;
  CUcontext ctx = nullptr;
  if (s.real.cuCtxGetCurrent && s.real.cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx != tc.ctx)
      [[unlikely]] {
    tc.ctx = ctx;
    tc.dev = table_device(s, current_device(s));
  }
  const int dev = tc.dev;
  if (dev < 0) return launch();
  RegionSlot& slot = s.region->layout().slots[s.region->slot()];
  slot.launches[dev].fetch_add(1, std::memory_order_relaxed);
  if (s.limiter[dev].unlimited()) return launch();
  Pacer* pacer = tc.pacer[dev];
  if (!pacer) [[unlikely]] {
    pacer = make_pacer(s, dev);
    if (!pacer) return launch();
  }
  CUresult r = CUDA_SUCCESS;
  const auto out = pacer->launch(key, stream, [&] {
    r = launch();
    return r == CUDA_SUCCESS;
  });
  if (out.throttled_ns > 0)
    slot.throttled_ns[dev].fetch_add(static_cast<uint64_t>(out.throttled_ns),
                                     std::memory_order_relaxed);
  return r;
}

inline uint64_t launch_key(const void* f, uint64_t gx, uint64_t gy, uint64_t gz) {
  return reinterpret_cast<uintptr_t>(f) ^ ((gx * gy * gz) << 1) * 0x9E3779B97F4A7C15ULL;
}

// ---- NVML ----
void init_nvml(State& s) {
  std::call_once(s.nvml_once, [&] {
    void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!h) h = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!h) return;
    s.real.nvmlDeviceGetIndex = reinterpret_cast<decltype(s.real.nvmlDeviceGetIndex)>(
        real_dlsym()(h, "nvmlDeviceGetIndex"));
    s.real.nvmlDeviceGetMemoryInfo = reinterpret_cast<decltype(s.real.nvmlDeviceGetMemoryInfo)>(
        real_dlsym()(h, "nvmlDeviceGetMemoryInfo"));
    s.real.nvmlDeviceGetMemoryInfo_v2 =
        reinterpret_cast<decltype(s.real.nvmlDeviceGetMemoryInfo_v2)>(
            real_dlsym()(h, "nvmlDeviceGetMemoryInfo_v2"));
    s.real.nvmlInit_v2 =
        reinterpret_cast<decltype(s.real.nvmlInit_v2)>(real_dlsym()(h, "nvmlInit_v2"));
    s.real.nvmlDeviceGetHandleByIndex_v2 =
        reinterpret_cast<decltype(s.real.nvmlDeviceGetHandleByIndex_v2)>(
            real_dlsym()(h, "nvmlDeviceGetHandleByIndex_v2"));
    s.real.nvmlDeviceGetComputeRunningProcesses_v3 =
        reinterpret_cast<decltype(s.real.nvmlDeviceGetComputeRunningProcesses_v3)>(
            real_dlsym()(h, "nvmlDeviceGetComputeRunningProcesses_v3"));
  });
}

// Opt-in reconciliation (SLICELAB_NVML_RECONCILE=1): sums NVML's per-process usage on `dev` over
// the container's processes (those holding a slot; NVML must see the same pids, e.g. hostPID),
// so memory taken behind the interposer's back still counts against the cap. At most once a
// second per device: an NVML query costs far more than an allocation.
void maybe_reconcile(State& s, int dev) {
  if (!s.cfg.nvml_reconcile || dev < 0) return;
  const int64_t now = s.now();
  int64_t due = s.next_reconcile[dev].load(std::memory_order_relaxed);
  if (now < due || !s.next_reconcile[dev].compare_exchange_strong(due, now + 1'000'000'000)) return;
  init_nvml(s);
  if (!s.real.nvmlInit_v2 || !s.real.nvmlDeviceGetHandleByIndex_v2 ||
      !s.real.nvmlDeviceGetComputeRunningProcesses_v3 || s.real.nvmlInit_v2() != NVML_SUCCESS)
    return;
  nvmlDevice_t h = nullptr;
  if (s.real.nvmlDeviceGetHandleByIndex_v2(static_cast<unsigned>(dev), &h) != NVML_SUCCESS) return;
  nvmlProcessInfo_t infos[64];
  unsigned n = 64;
  if (s.real.nvmlDeviceGetComputeRunningProcesses_v3(h, &n, infos) != NVML_SUCCESS) return;
  uint64_t observed = 0;
  s.region->slot();  // this process counts as the container's even before its first allocation
  for (unsigned i = 0; i < n; ++i)
    if (s.region->has_process(infos[i].pid)) observed += infos[i].usedGpuMemory;
  s.region->reconcile(dev, observed);
}

// Rewrites total/free/used so that nvidia-smi and NVML users see the container's cap and usage.
// NVML's device index is taken as the CUDA ordinal (true with CUDA_DEVICE_ORDER=PCI_BUS_ID).
template <class Mem>
void virtualise(State& s, nvmlDevice_t device, Mem* m) {
  unsigned idx = 0;
  if (!s.real.nvmlDeviceGetIndex || s.real.nvmlDeviceGetIndex(device, &idx) != NVML_SUCCESS ||
      idx > static_cast<unsigned>(INT32_MAX))
    return;
  const int d = static_cast<int>(idx);
  if (s.region->memory_cap(d) == UINT64_MAX) return;
  const uint64_t total = capped_total(s, d, m->total);
  // Beyond the table, or with the region refused, nothing can be allocated while capped: none
  // of it is free.
  const uint64_t used = d < kMaxDevices && !s.region->refused() ? s.region->used(d) : total;
  m->total = total;
  m->used = used < total ? used : total;
  m->free = total - m->used;
}

}  // namespace
}  // namespace slicelab::interposer

using namespace slicelab::interposer;

// ---- exported hooks ----
extern "C" {

#define REAL(name) (st().real.name ? st().real.name : nullptr)
#define NO_DRIVER CUDA_ERROR_NOT_INITIALIZED

CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t bytes) {
  SLICELAB_OVERHEAD_TEST_DELAY_HOOK(kMemory);
  State& s = st();
  if (!s.real.cuMemAlloc_v2) return NO_DRIVER;
  return counted(
      current_device(s), bytes, Kind::kPointer, [&] { return s.real.cuMemAlloc_v2(p, bytes); },
      [&] { return static_cast<uint64_t>(*p); });
}

CUresult cuMemAllocManaged(CUdeviceptr* p, size_t bytes, unsigned flags) {
  State& s = st();
  if (!s.real.cuMemAllocManaged) return NO_DRIVER;
  return counted(
      current_device(s), bytes, Kind::kPointer,
      [&] { return s.real.cuMemAllocManaged(p, bytes, flags); },
      [&] { return static_cast<uint64_t>(*p); });
}

CUresult cuMemAllocPitch_v2(CUdeviceptr* p, size_t* pitch, size_t width, size_t height,
                            unsigned elem) {
  State& s = st();
  if (!s.real.cuMemAllocPitch_v2) return NO_DRIVER;
  const int dev = current_device(s);
  // The driver picks the pitch; reserve the usual 512-byte-aligned figure, then settle on the
  // real one (reserving the difference, or giving it back).
  const uint64_t guess = (width + 511) / 512 * 512 * height;
  if (dev < 0 || (dev >= kMaxDevices && !refused_beyond_table(s, dev)))
    return s.real.cuMemAllocPitch_v2(p, pitch, width, height, elem);
  if (dev >= kMaxDevices || !s.region->reserve(dev, guess)) return CUDA_ERROR_OUT_OF_MEMORY;
  const CUresult r = s.real.cuMemAllocPitch_v2(p, pitch, width, height, elem);
  if (r != CUDA_SUCCESS) {
    s.region->cancel(dev, guess);
    return r;
  }
  const uint64_t actual = static_cast<uint64_t>(*pitch) * height;
  if (actual > guess && !s.region->reserve(dev, actual - guess)) {
    s.region->cancel(dev, guess);
    s.real.cuMemFree_v2(*p);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  if (actual < guess) s.region->cancel(dev, guess - actual);
  s.region->commit(dev, actual);
  track(s, Kind::kPointer, *p, actual, dev);
  return r;
}

CUresult cuMemAllocAsync(CUdeviceptr* p, size_t bytes, CUstream h) {
  State& s = st();
  if (!s.real.cuMemAllocAsync) return NO_DRIVER;
  // Always CUDA_ERROR_OUT_OF_MEMORY over the cap (HAMi-core returns -1 on this path).
  return counted(
      current_device(s), bytes, Kind::kPointer, [&] { return s.real.cuMemAllocAsync(p, bytes, h); },
      [&] { return static_cast<uint64_t>(*p); });
}
CUresult cuMemAllocAsync_ptsz(CUdeviceptr* p, size_t bytes, CUstream h) {
  State& s = st();
  if (!s.real.cuMemAllocAsync_ptsz) return NO_DRIVER;
  return counted(
      current_device(s), bytes, Kind::kPointer,
      [&] { return s.real.cuMemAllocAsync_ptsz(p, bytes, h); },
      [&] { return static_cast<uint64_t>(*p); });
}
CUresult cuMemAllocFromPoolAsync(CUdeviceptr* p, size_t bytes, CUmemoryPool pool, CUstream h) {
  State& s = st();
  if (!s.real.cuMemAllocFromPoolAsync) return NO_DRIVER;
  return counted(
      current_device(s), bytes, Kind::kPointer,
      [&] { return s.real.cuMemAllocFromPoolAsync(p, bytes, pool, h); },
      [&] { return static_cast<uint64_t>(*p); });
}
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr* p, size_t bytes, CUmemoryPool pool, CUstream h) {
  State& s = st();
  if (!s.real.cuMemAllocFromPoolAsync_ptsz) return NO_DRIVER;
  return counted(
      current_device(s), bytes, Kind::kPointer,
      [&] { return s.real.cuMemAllocFromPoolAsync_ptsz(p, bytes, pool, h); },
      [&] { return static_cast<uint64_t>(*p); });
}

CUresult cuMemFree_v2(CUdeviceptr p) {
  SLICELAB_OVERHEAD_TEST_DELAY_HOOK(kMemory);
  State& s = st();
  if (!s.real.cuMemFree_v2) return NO_DRIVER;
  return credited(Kind::kPointer, p, [&] { return s.real.cuMemFree_v2(p); });
}
CUresult cuMemFreeAsync(CUdeviceptr p, CUstream h) {
  State& s = st();
  if (!s.real.cuMemFreeAsync) return NO_DRIVER;
  return credited(Kind::kPointer, p, [&] { return s.real.cuMemFreeAsync(p, h); });
}
CUresult cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream h) {
  State& s = st();
  if (!s.real.cuMemFreeAsync_ptsz) return NO_DRIVER;
  return credited(Kind::kPointer, p, [&] { return s.real.cuMemFreeAsync_ptsz(p, h); });
}

CUresult cuMemCreate(CUmemGenericAllocationHandle* h, size_t bytes, const CUmemAllocationProp* prop,
                     unsigned long long flags) {
  State& s = st();
  if (!s.real.cuMemCreate) return NO_DRIVER;
  const int dev =
      prop && prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE && prop->location.id >= 0
          ? prop->location.id
          : -1;
  // Physical memory is taken at creation; mapping it (cuMemMap) adds nothing.
  return counted(
      dev, bytes, Kind::kHandle, [&] { return s.real.cuMemCreate(h, bytes, prop, flags); },
      [&] { return static_cast<uint64_t>(*h); });
}
CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle* h, void* os_handle,
                                        CUmemAllocationHandleType type) {
  State& s = st();
  if (!s.real.cuMemImportFromShareableHandle) return NO_DRIVER;
  const CUresult r = s.real.cuMemImportFromShareableHandle(h, os_handle, type);
  // An imported handle carries no size: it is counted when first mapped, for the mapped size.
  if (r == CUDA_SUCCESS) track(s, Kind::kImported, *h, 0, current_device(s));
  return r;
}
// A legacy IPC import maps memory another process allocated; its size is known only once it is
// open, so it is opened, then counted, and closed again with CUDA_ERROR_OUT_OF_MEMORY when over.
CUresult cuIpcOpenMemHandle_v2(CUdeviceptr* p, CUipcMemHandle h, unsigned int flags) {
  State& s = st();
  if (!s.real.cuIpcOpenMemHandle_v2) return NO_DRIVER;
  const CUresult r = s.real.cuIpcOpenMemHandle_v2(p, h, flags);
  const int dev = current_device(s);
  CUdeviceptr base = 0;
  size_t bytes = 0;
  if (r != CUDA_SUCCESS || dev < 0) return r;
  if (dev >= kMaxDevices && !refused_beyond_table(s, dev)) return r;
  if (dev < kMaxDevices && (!s.real.cuMemGetAddressRange_v2 ||
                            s.real.cuMemGetAddressRange_v2(&base, &bytes, *p) != CUDA_SUCCESS))
    return r;
  if (dev >= kMaxDevices || !s.region->reserve(dev, bytes)) {
    s.real.cuIpcCloseMemHandle(*p);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  s.region->commit(dev, bytes);
  track(s, Kind::kPointer, *p, bytes, dev);
  return r;
}
CUresult cuIpcCloseMemHandle(CUdeviceptr p) {
  State& s = st();
  if (!s.real.cuIpcCloseMemHandle) return NO_DRIVER;
  return credited(Kind::kPointer, p, [&] { return s.real.cuIpcCloseMemHandle(p); });
}

CUresult cuMemMap(CUdeviceptr ptr, size_t bytes, size_t offset, CUmemGenericAllocationHandle h,
                  unsigned long long flags) {
  State& s = st();
  if (!s.real.cuMemMap) return NO_DRIVER;
  Tracked t{};
  if (!untrack(s, Kind::kImported, h, &t)) return s.real.cuMemMap(ptr, bytes, offset, h, flags);
  // Already counted, or no device known, or an uncapped device beyond the table.
  if (t.bytes > 0 || t.device < 0 ||
      (t.device >= kMaxDevices && !refused_beyond_table(s, t.device))) {
    track(s, Kind::kImported, h, t.bytes, t.device);
    return s.real.cuMemMap(ptr, bytes, offset, h, flags);
  }
  if (t.device >= kMaxDevices || !s.region->reserve(t.device, bytes)) {
    track(s, Kind::kImported, h, 0, t.device);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  const CUresult r = s.real.cuMemMap(ptr, bytes, offset, h, flags);
  if (r == CUDA_SUCCESS) {
    s.region->commit(t.device, bytes);
    track(s, Kind::kImported, h, bytes, t.device);
  } else {
    s.region->cancel(t.device, bytes);
    track(s, Kind::kImported, h, 0, t.device);
  }
  return r;
}
CUresult cuMemRelease(CUmemGenericAllocationHandle h) {
  State& s = st();
  if (!s.real.cuMemRelease) return NO_DRIVER;
  Tracked t{};
  Kind kind = Kind::kHandle;
  bool known = untrack(s, kind, h, &t);
  if (!known) known = untrack(s, kind = Kind::kImported, h, &t);
  const CUresult r = s.real.cuMemRelease(h);
  if (!known) return r;
  if (r != CUDA_SUCCESS) {
    track(s, kind, h, t.bytes, t.device);
  } else if (t.bytes > 0) {
    s.region->release(t.device, t.bytes);
  }
  return r;
}

CUresult cuArrayCreate_v2(CUarray* a, const CUDA_ARRAY_DESCRIPTOR* d) {
  State& s = st();
  if (!s.real.cuArrayCreate_v2) return NO_DRIVER;
  if (!d) return s.real.cuArrayCreate_v2(a, d);
  const uint64_t bytes = slicelab::array_bytes(*d);
  return counted(
      current_device(s), bytes, Kind::kArray, [&] { return s.real.cuArrayCreate_v2(a, d); },
      [&] { return reinterpret_cast<uint64_t>(*a); });
}
CUresult cuArray3DCreate_v2(CUarray* a, const CUDA_ARRAY3D_DESCRIPTOR* d) {
  State& s = st();
  if (!s.real.cuArray3DCreate_v2) return NO_DRIVER;
  if (!d) return s.real.cuArray3DCreate_v2(a, d);
  return counted(
      current_device(s), slicelab::array3d_bytes(*d, 1), Kind::kArray,
      [&] { return s.real.cuArray3DCreate_v2(a, d); },
      [&] { return reinterpret_cast<uint64_t>(*a); });
}
CUresult cuMipmappedArrayCreate(CUmipmappedArray* a, const CUDA_ARRAY3D_DESCRIPTOR* d,
                                unsigned levels) {
  State& s = st();
  if (!s.real.cuMipmappedArrayCreate) return NO_DRIVER;
  if (!d) return s.real.cuMipmappedArrayCreate(a, d, levels);
  return counted(
      current_device(s), slicelab::array3d_bytes(*d, levels), Kind::kArray,
      [&] { return s.real.cuMipmappedArrayCreate(a, d, levels); },
      [&] { return reinterpret_cast<uint64_t>(*a); });
}
CUresult cuArrayDestroy(CUarray a) {
  State& s = st();
  if (!s.real.cuArrayDestroy) return NO_DRIVER;
  return credited(Kind::kArray, reinterpret_cast<uint64_t>(a),
                  [&] { return s.real.cuArrayDestroy(a); });
}
CUresult cuMipmappedArrayDestroy(CUmipmappedArray a) {
  State& s = st();
  if (!s.real.cuMipmappedArrayDestroy) return NO_DRIVER;
  return credited(Kind::kArray, reinterpret_cast<uint64_t>(a),
                  [&] { return s.real.cuMipmappedArrayDestroy(a); });
}

CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total) {
  State& s = st();
  if (!s.real.cuMemGetInfo_v2) return NO_DRIVER;
  const CUresult r = s.real.cuMemGetInfo_v2(free_bytes, total);
  const int dev = current_device(s);
  if (r != CUDA_SUCCESS || dev < 0 || s.region->memory_cap(dev) == UINT64_MAX) return r;
  const uint64_t t = capped_total(s, dev, *total);
  // Beyond the table, or with the region refused, nothing can be allocated while capped: none
  // of it is free.
  const uint64_t used = dev < kMaxDevices && !s.region->refused() ? s.region->used(dev) : t;
  const uint64_t left = used < t ? t - used : 0;
  *total = t;
  *free_bytes = left < *free_bytes ? left : *free_bytes;
  return r;
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
  State& s = st();
  if (!s.real.cuDeviceTotalMem_v2) return NO_DRIVER;
  const CUresult r = s.real.cuDeviceTotalMem_v2(bytes, dev);
  if (r == CUDA_SUCCESS && dev >= 0) *bytes = capped_total(s, dev, *bytes);
  return r;
}

// ---- launches ----
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned sh, CUstream h, void** params,
                        void** extra) {
  SLICELAB_OVERHEAD_TEST_DELAY_HOOK(kLaunch);
  State& s = st();
  if (!s.real.cuLaunchKernel) return NO_DRIVER;
  return paced(launch_key(f, gx, gy, gz), StreamRef{h, false}, [&] {
    return s.real.cuLaunchKernel(f, gx, gy, gz, bx, by, bz, sh, h, params, extra);
  });
}
CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                             unsigned by, unsigned bz, unsigned sh, CUstream h, void** params,
                             void** extra) {
  State& s = st();
  if (!s.real.cuLaunchKernel_ptsz) return NO_DRIVER;
  return paced(launch_key(f, gx, gy, gz), StreamRef{h, true}, [&] {
    return s.real.cuLaunchKernel_ptsz(f, gx, gy, gz, bx, by, bz, sh, h, params, extra);
  });
}
CUresult cuLaunchKernelEx(const CUlaunchConfig* c, CUfunction f, void** params, void** extra) {
  State& s = st();
  if (!s.real.cuLaunchKernelEx) return NO_DRIVER;
  if (!c) return s.real.cuLaunchKernelEx(c, f, params, extra);
  return paced(launch_key(f, c->gridDimX, c->gridDimY, c->gridDimZ), StreamRef{c->hStream, false},
               [&] { return s.real.cuLaunchKernelEx(c, f, params, extra); });
}
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig* c, CUfunction f, void** params, void** extra) {
  State& s = st();
  if (!s.real.cuLaunchKernelEx_ptsz) return NO_DRIVER;
  if (!c) return s.real.cuLaunchKernelEx_ptsz(c, f, params, extra);
  return paced(launch_key(f, c->gridDimX, c->gridDimY, c->gridDimZ), StreamRef{c->hStream, true},
               [&] { return s.real.cuLaunchKernelEx_ptsz(c, f, params, extra); });
}
CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                   unsigned by, unsigned bz, unsigned sh, CUstream h,
                                   void** params) {
  State& s = st();
  if (!s.real.cuLaunchCooperativeKernel) return NO_DRIVER;
  return paced(launch_key(f, gx, gy, gz), StreamRef{h, false}, [&] {
    return s.real.cuLaunchCooperativeKernel(f, gx, gy, gz, bx, by, bz, sh, h, params);
  });
}
CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                        unsigned bx, unsigned by, unsigned bz, unsigned sh,
                                        CUstream h, void** params) {
  State& s = st();
  if (!s.real.cuLaunchCooperativeKernel_ptsz) return NO_DRIVER;
  return paced(launch_key(f, gx, gy, gz), StreamRef{h, true}, [&] {
    return s.real.cuLaunchCooperativeKernel_ptsz(f, gx, gy, gz, bx, by, bz, sh, h, params);
  });
}
CUresult cuGraphLaunch(CUgraphExec g, CUstream h) {
  State& s = st();
  if (!s.real.cuGraphLaunch) return NO_DRIVER;
  return paced(launch_key(g, 1, 1, 1), StreamRef{h, false},
               [&] { return s.real.cuGraphLaunch(g, h); });
}
CUresult cuGraphLaunch_ptsz(CUgraphExec g, CUstream h) {
  State& s = st();
  if (!s.real.cuGraphLaunch_ptsz) return NO_DRIVER;
  return paced(launch_key(g, 1, 1, 1), StreamRef{h, true},
               [&] { return s.real.cuGraphLaunch_ptsz(g, h); });
}

// ---- entry-point lookup: cuGetProcAddress and dlsym ----
namespace {
struct Hook {
  const char* name;
  void* hook;
  size_t real_offset;  // where Real keeps the driver's pointer for this name
};
#define HOOK(name) {#name, reinterpret_cast<void*>(&::name), offsetof(Real, name)},
const Hook kHooks[] = {SLICELAB_REAL_FUNCTIONS(HOOK)};
#undef HOOK

void* real_of(const Hook& h) {
  return *reinterpret_cast<void**>(reinterpret_cast<char*>(&st().real) + h.real_offset);
}
// Whatever version of a hooked function the driver hands out maps to our hook of that version.
void* substitute(void* p) {
  if (!p) return p;
  for (const Hook& h : kHooks)
    if (real_of(h) == p) return h.hook;
  return p;
}
}  // namespace

CUresult cuGetProcAddress(const char* symbol, void** pfn, int version, cuuint64_t flags) {
  State& s = st();
  if (!s.real.cuGetProcAddress) return NO_DRIVER;
  const CUresult r = s.real.cuGetProcAddress(symbol, pfn, version, flags);
  if (r == CUDA_SUCCESS && pfn) *pfn = substitute(*pfn);
  return r;
}
CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult* status) {
  State& s = st();
  if (!s.real.cuGetProcAddress_v2) return NO_DRIVER;
  const CUresult r = s.real.cuGetProcAddress_v2(symbol, pfn, version, flags, status);
  if (r == CUDA_SUCCESS && pfn) *pfn = substitute(*pfn);
  return r;
}

// ---- NVML ----
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* m) {
  State& s = st();
  init_nvml(s);
  if (!s.real.nvmlDeviceGetMemoryInfo) return NVML_ERROR_FUNCTION_NOT_FOUND;
  const nvmlReturn_t r = s.real.nvmlDeviceGetMemoryInfo(device, m);
  if (r == NVML_SUCCESS) virtualise(s, device, m);
  return r;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t* m) {
  State& s = st();
  init_nvml(s);
  if (!s.real.nvmlDeviceGetMemoryInfo_v2) return NVML_ERROR_FUNCTION_NOT_FOUND;
  const nvmlReturn_t r = s.real.nvmlDeviceGetMemoryInfo_v2(device, m);
  if (r == NVML_SUCCESS) virtualise(s, device, m);
  return r;
}

}  // extern "C"
