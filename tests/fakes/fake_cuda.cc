// A GPU-free stand-in for libcuda.so.1, for tests and benchmarks only: devices with a memory
// capacity backed by host memory, contexts, streams and events on a virtual device timeline, and
// launches that occupy that timeline for a duration the test chooses.
#include <cuda.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "backends/interposer/array_bytes.h"
#include "backends/interposer/driver_extra_decls.h"
#include "tests/fakes/fake_control.h"

// The driver exports every version of this name; cuda.h maps it to the newest.
#undef cuEventElapsedTime

namespace {

// More than the interposer's 16-device table, so that tests reach ordinals beyond it.
constexpr int kMaxDevices = 24;

int64_t env_int(const char* name, int64_t dflt) {
  const char* v = std::getenv(name);
  if (!v || !*v) return dflt;
  char* end = nullptr;
  const long long x = std::strtoll(v, &end, 10);
  return end && *end == '\0' ? x : dflt;
}

struct Device {
  std::atomic<uint64_t> used{0};
  std::atomic<int64_t> busy_until{0};
  std::atomic<int64_t> busy_total{0};
};

struct Fake {
  int devices =
      static_cast<int>(std::clamp<int64_t>(env_int("SLICELAB_FAKE_DEVICES", 2), 1, kMaxDevices));
  uint64_t capacity = static_cast<uint64_t>(env_int("SLICELAB_FAKE_DEVICE_MEM", int64_t{16} << 30));
  bool virtual_time = env_int("SLICELAB_FAKE_VIRTUAL_TIME", 0) == 1;
  int64_t kernel_ns = env_int("SLICELAB_FAKE_KERNEL_NS", 1000);
  int64_t alloc_delay_ms = env_int("SLICELAB_FAKE_ALLOC_DELAY_MS", 0);
  std::atomic<int64_t> virtual_now{1'000'000'000};
  Device dev[kMaxDevices];
  std::mutex mu;  // guards the allocation maps
  std::unordered_map<uintptr_t, std::pair<size_t, int>> allocs;
  bool initialised = false;
  // An MPS client's pinned memory limit per device (0: none), as the daemon would impose it.
  uint64_t mps_limit[kMaxDevices] = {};
  Fake();
};

// What an MPS client gets from its daemon: the fake MPS control program keeps each
// set_default_device_pinned_mem_limit in <pipe folder>/fake-mps-limits ("pinned <dev> <MiB>"),
// and CUDA_MPS_PINNED_DEVICE_MEM_LIMIT ("0=512M,1=1G") overrides it, as in a real client. The
// device is the client's ordinal: the fake does not renumber CUDA_VISIBLE_DEVICES.
void read_mps_limits(Fake& f) {
  const char* pipe = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  if (!pipe || !*pipe) return;
  if (FILE* in = std::fopen((std::string(pipe) + "/fake-mps-limits").c_str(), "r")) {
    int dev = 0;
    unsigned long long mib = 0;
    while (std::fscanf(in, "pinned %d %llu\n", &dev, &mib) == 2)
      if (dev >= 0 && dev < kMaxDevices) f.mps_limit[dev] = uint64_t{mib} << 20;
    std::fclose(in);
  }
  if (const char* list = std::getenv("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT")) {
    int dev = 0, used = 0;
    unsigned long long n = 0;
    char unit = 'M';
    while (std::sscanf(list, "%d=%llu%c%n", &dev, &n, &unit, &used) == 3) {
      const int shift = unit == 'G' ? 30 : unit == 'K' ? 10 : 20;
      if (dev >= 0 && dev < kMaxDevices) f.mps_limit[dev] = uint64_t{n} << shift;
      list += used;
      if (*list != ',') break;
      ++list;
    }
  }
}

Fake::Fake() {
  read_mps_limits(*this);
}

Fake& fake() {
  static Fake f;
  return f;
}

struct Context {
  int device;
};
constexpr std::array<Context, kMaxDevices> numbered_contexts() {
  std::array<Context, kMaxDevices> a{};
  for (int d = 0; d < kMaxDevices; ++d) a[static_cast<size_t>(d)].device = d;
  return a;
}
std::array<Context, kMaxDevices> g_primary = numbered_contexts();
thread_local Context* t_current = nullptr;

struct Event {
  int64_t t = 0;
  bool recorded = false;
};
struct Handle {  // a cuMemCreate handle, or an imported one
  size_t size;
  int device;
  bool imported;
};
struct GraphExec {
  int64_t ns;
};

int64_t real_now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

void real_sleep(int64_t ns) {
  if (ns <= 0) return;
  timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
  }
}

int current_device() {
  return t_current ? t_current->device : -1;
}

CUresult occupy(int64_t ns) {
  const int d = current_device();
  if (d < 0) return CUDA_ERROR_INVALID_CONTEXT;
  Device& dev = fake().dev[d];
  const int64_t now = slicelab_fake_now_ns();
  int64_t old = dev.busy_until.load();
  while (!dev.busy_until.compare_exchange_weak(old, std::max(old, now) + ns)) {
  }
  dev.busy_total.fetch_add(ns);
  return CUDA_SUCCESS;
}

int64_t kernel_ns(void** params) {
  return params && params[0] ? static_cast<int64_t>(*static_cast<uint64_t*>(params[0]))
                             : fake().kernel_ns;
}

CUresult take(int d, size_t size) {
  Fake& f = fake();
  if (d < 0) return CUDA_ERROR_INVALID_CONTEXT;
  if (f.alloc_delay_ms > 0) {
    // Said from inside the call, so that a test knows an interposer's reservation is made.
    std::fputs("inside the driver's allocation\n", stdout);
    std::fflush(stdout);
    real_sleep(f.alloc_delay_ms * 1'000'000);
  }
  const uint64_t cap = f.mps_limit[d] > 0 ? std::min(f.capacity, f.mps_limit[d]) : f.capacity;
  uint64_t old = f.dev[d].used.load();
  do {
    if (old > cap || size > cap - old) return CUDA_ERROR_OUT_OF_MEMORY;
  } while (!f.dev[d].used.compare_exchange_weak(old, old + size));
  return CUDA_SUCCESS;
}
void give(int d, size_t size) {
  fake().dev[d].used.fetch_sub(size);
}

CUresult alloc(CUdeviceptr* p, size_t size) {
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  if (size == 0) return CUDA_ERROR_INVALID_VALUE;
  const int d = current_device();
  if (CUresult r = take(d, size); r != CUDA_SUCCESS) return r;
  // Device memory is host memory that is never touched: the pages are reserved, not committed.
  void* mem = std::malloc(size);
  if (!mem) {
    give(d, size);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  Fake& f = fake();
  std::lock_guard<std::mutex> g(f.mu);
  f.allocs[reinterpret_cast<uintptr_t>(mem)] = {size, d};
  *p = reinterpret_cast<CUdeviceptr>(mem);
  return CUDA_SUCCESS;
}

CUresult dealloc(CUdeviceptr p) {
  Fake& f = fake();
  std::pair<size_t, int> a;
  {
    std::lock_guard<std::mutex> g(f.mu);
    auto it = f.allocs.find(static_cast<uintptr_t>(p));
    if (it == f.allocs.end()) return CUDA_ERROR_INVALID_VALUE;
    a = it->second;
    f.allocs.erase(it);
  }
  if (a.second >= 0) give(a.second, a.first);  // an IPC mapping (-1) holds no memory of its own
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the fake's pointers travel as integers
  std::free(reinterpret_cast<void*>(p));
  return CUDA_SUCCESS;
}

struct FakeArray {
  size_t size;
  int device;
};

CUresult make_array(size_t bytes, void** out) {
  const int d = current_device();
  if (CUresult r = take(d, bytes); r != CUDA_SUCCESS) return r;
  *out = new FakeArray{bytes, d};
  return CUDA_SUCCESS;
}
CUresult drop_array(void* a) {
  if (!a) return CUDA_ERROR_INVALID_HANDLE;
  auto* fa = static_cast<FakeArray*>(a);
  give(fa->device, fa->size);
  delete fa;
  return CUDA_SUCCESS;
}

}  // namespace

extern "C" {

int64_t slicelab_fake_now_ns(void) {
  return fake().virtual_time ? fake().virtual_now.load() : real_now();
}
void slicelab_fake_sleep_ns(int64_t ns) {
  if (fake().virtual_time) {
    fake().virtual_now.fetch_add(std::max<int64_t>(ns, 0));
  } else {
    real_sleep(ns);
  }
}
int64_t slicelab_fake_busy_ns(int dev) {
  return dev >= 0 && dev < kMaxDevices ? fake().dev[dev].busy_total.load() : 0;
}
uint64_t slicelab_fake_used_bytes(int dev) {
  return dev >= 0 && dev < kMaxDevices ? fake().dev[dev].used.load() : 0;
}
void* slicelab_fake_graph_exec(int64_t ns) {
  return new GraphExec{ns};
}

// Waits (or advances virtual time) until the current device's timeline reaches `t`.
static void wait_until(int64_t t) {
  Fake& f = fake();
  if (f.virtual_time) {
    int64_t old = f.virtual_now.load();
    while (old < t && !f.virtual_now.compare_exchange_weak(old, t)) {
    }
  } else {
    real_sleep(t - real_now());
  }
}

CUresult cuInit(unsigned int) {
  fake().initialised = true;
  return CUDA_SUCCESS;
}
CUresult cuDriverGetVersion(int* v) {
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  *v = CUDA_VERSION;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int* n) {
  if (!n) return CUDA_ERROR_INVALID_VALUE;
  *n = fake().devices;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice* d, int ordinal) {
  if (!d || ordinal < 0 || ordinal >= fake().devices) return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char* name, int len, CUdevice) {
  if (!name || len < 1) return CUDA_ERROR_INVALID_VALUE;
  std::strncpy(name, "slicelab fake GPU", static_cast<size_t>(len) - 1);
  name[len - 1] = '\0';
  return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice d) {
  if (!bytes || d < 0 || d >= fake().devices) return CUDA_ERROR_INVALID_VALUE;
  *bytes = fake().capacity;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice) {
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  *v = a == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ? 108 : 1;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  if (!c || d < 0 || d >= fake().devices) return CUDA_ERROR_INVALID_DEVICE;
  *c = reinterpret_cast<CUcontext>(&g_primary[static_cast<size_t>(d)]);
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice) {
  return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext c) {
  t_current = reinterpret_cast<Context*>(c);
  return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(CUcontext* c) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  *c = reinterpret_cast<CUcontext>(t_current);
  return CUDA_SUCCESS;
}
CUresult cuCtxGetDevice(CUdevice* d) {
  if (!d) return CUDA_ERROR_INVALID_VALUE;
  if (!t_current) return CUDA_ERROR_INVALID_CONTEXT;
  *d = t_current->device;
  return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize(void) {
  const int d = current_device();
  if (d < 0) return CUDA_ERROR_INVALID_CONTEXT;
  wait_until(fake().dev[d].busy_until.load());
  return CUDA_SUCCESS;
}
CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total) {
  const int d = current_device();
  if (d < 0) return CUDA_ERROR_INVALID_CONTEXT;
  if (!free_bytes || !total) return CUDA_ERROR_INVALID_VALUE;
  *total = fake().capacity;
  *free_bytes = fake().capacity - fake().dev[d].used.load();
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t size) {
  return alloc(p, size);
}
CUresult cuMemAllocPitch_v2(CUdeviceptr* p, size_t* pitch, size_t width, size_t height,
                            unsigned int) {
  if (!pitch) return CUDA_ERROR_INVALID_VALUE;
  *pitch = (width + 511) / 512 * 512;
  return alloc(p, *pitch * height);
}
CUresult cuMemAllocManaged(CUdeviceptr* p, size_t size, unsigned int) {
  return alloc(p, size);
}
CUresult cuMemAllocAsync(CUdeviceptr* p, size_t size, CUstream) {
  return alloc(p, size);
}
CUresult cuMemAllocAsync_ptsz(CUdeviceptr* p, size_t size, CUstream) {
  return alloc(p, size);
}
CUresult cuMemAllocFromPoolAsync(CUdeviceptr* p, size_t size, CUmemoryPool, CUstream) {
  return alloc(p, size);
}
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr* p, size_t size, CUmemoryPool, CUstream) {
  return alloc(p, size);
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  return dealloc(p);
}
CUresult cuMemFreeAsync(CUdeviceptr p, CUstream) {
  return dealloc(p);
}
CUresult cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream) {
  return dealloc(p);
}
CUresult cuMemGetAddressRange_v2(CUdeviceptr* base, size_t* size, CUdeviceptr p) {
  Fake& f = fake();
  std::lock_guard<std::mutex> g(f.mu);
  auto it = f.allocs.find(static_cast<uintptr_t>(p));
  if (it == f.allocs.end()) return CUDA_ERROR_NOT_FOUND;
  if (base) *base = p;
  if (size) *size = it->second.first;
  return CUDA_SUCCESS;
}

// Legacy IPC: the fake's handle carries the exported size; opening it maps that many bytes
// (new host memory here) that belong to the exporter, so the device's usage does not change.
CUresult cuIpcGetMemHandle(CUipcMemHandle* h, CUdeviceptr p) {
  CUdeviceptr base = 0;
  size_t size = 0;
  if (!h || cuMemGetAddressRange_v2(&base, &size, p) != CUDA_SUCCESS)
    return CUDA_ERROR_INVALID_VALUE;
  std::memset(h, 0, sizeof *h);
  std::memcpy(h->reserved, &size, sizeof size);
  return CUDA_SUCCESS;
}
CUresult cuIpcOpenMemHandle_v2(CUdeviceptr* p, CUipcMemHandle h, unsigned int) {
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  size_t size = 0;
  std::memcpy(&size, h.reserved, sizeof size);
  void* mem = std::malloc(size ? size : 1);
  Fake& f = fake();
  std::lock_guard<std::mutex> g(f.mu);
  f.allocs[reinterpret_cast<uintptr_t>(mem)] = {size, -1};
  *p = reinterpret_cast<CUdeviceptr>(mem);
  return CUDA_SUCCESS;
}
CUresult cuIpcCloseMemHandle(CUdeviceptr p) {
  return dealloc(p);
}

CUresult cuMemCreate(CUmemGenericAllocationHandle* h, size_t size, const CUmemAllocationProp* prop,
                     unsigned long long) {
  if (!h || !prop || size == 0) return CUDA_ERROR_INVALID_VALUE;
  const int d = prop->location.id;
  if (d < 0 || d >= fake().devices) return CUDA_ERROR_INVALID_DEVICE;
  if (CUresult r = take(d, size); r != CUDA_SUCCESS) return r;
  *h = reinterpret_cast<CUmemGenericAllocationHandle>(new Handle{size, d, false});
  return CUDA_SUCCESS;
}
CUresult cuMemRelease(CUmemGenericAllocationHandle h) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the fake's pointers travel as integers
  auto* hd = reinterpret_cast<Handle*>(h);
  if (!hd) return CUDA_ERROR_INVALID_HANDLE;
  if (!hd->imported) give(hd->device, hd->size);
  delete hd;
  return CUDA_SUCCESS;
}
CUresult cuMemExportToShareableHandle(void* os_handle, CUmemGenericAllocationHandle h,
                                      CUmemAllocationHandleType, unsigned long long) {
  if (!os_handle) return CUDA_ERROR_INVALID_VALUE;
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the fake's pointers travel as integers
  auto* hd = reinterpret_cast<Handle*>(h);
  // The fake's "file descriptor" carries the size, so an importer can map the right amount.
  *static_cast<uint64_t*>(os_handle) = hd->size;
  return CUDA_SUCCESS;
}
CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle* h, void* os_handle,
                                        CUmemAllocationHandleType) {
  if (!h) return CUDA_ERROR_INVALID_VALUE;
  const auto size = static_cast<size_t>(reinterpret_cast<uintptr_t>(os_handle));
  *h = reinterpret_cast<CUmemGenericAllocationHandle>(new Handle{size, current_device(), true});
  return CUDA_SUCCESS;
}
CUresult cuMemAddressReserve(CUdeviceptr* p, size_t size, size_t, CUdeviceptr, unsigned long long) {
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  *p = reinterpret_cast<CUdeviceptr>(std::malloc(size ? size : 1));
  return CUDA_SUCCESS;
}
CUresult cuMemAddressFree(CUdeviceptr p, size_t) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the fake's pointers travel as integers
  std::free(reinterpret_cast<void*>(p));
  return CUDA_SUCCESS;
}
CUresult cuMemMap(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle h, unsigned long long) {
  return h ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
CUresult cuMemUnmap(CUdeviceptr, size_t) {
  return CUDA_SUCCESS;
}

CUresult cuArrayCreate_v2(CUarray* a, const CUDA_ARRAY_DESCRIPTOR* d) {
  if (!a || !d) return CUDA_ERROR_INVALID_VALUE;
  return make_array(slicelab::array_bytes(*d), reinterpret_cast<void**>(a));
}
CUresult cuArray3DCreate_v2(CUarray* a, const CUDA_ARRAY3D_DESCRIPTOR* d) {
  if (!a || !d) return CUDA_ERROR_INVALID_VALUE;
  return make_array(slicelab::array3d_bytes(*d), reinterpret_cast<void**>(a));
}
CUresult cuArrayDestroy(CUarray a) {
  return drop_array(a);
}
CUresult cuMipmappedArrayCreate(CUmipmappedArray* a, const CUDA_ARRAY3D_DESCRIPTOR* d,
                                unsigned int levels) {
  if (!a || !d) return CUDA_ERROR_INVALID_VALUE;
  return make_array(slicelab::array3d_bytes(*d, levels), reinterpret_cast<void**>(a));
}
CUresult cuMipmappedArrayDestroy(CUmipmappedArray a) {
  return drop_array(a);
}

CUresult cuStreamCreate(CUstream* s, unsigned int) {
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  *s = reinterpret_cast<CUstream>(new int(current_device()));
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy_v2(CUstream s) {
  delete reinterpret_cast<int*>(s);
  return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream) {
  return cuCtxSynchronize();
}
CUresult cuStreamSynchronize_ptsz(CUstream) {
  return cuCtxSynchronize();
}

CUresult cuEventCreate(CUevent* e, unsigned int) {
  if (!e) return CUDA_ERROR_INVALID_VALUE;
  *e = reinterpret_cast<CUevent>(new Event);
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy_v2(CUevent e) {
  delete reinterpret_cast<Event*>(e);
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent e, CUstream) {
  const int d = current_device();
  if (d < 0) return CUDA_ERROR_INVALID_CONTEXT;
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  auto* ev = reinterpret_cast<Event*>(e);
  // An event completes when the stream reaches it: now if idle, else when queued work ends.
  ev->t = std::max(slicelab_fake_now_ns(), fake().dev[d].busy_until.load());
  ev->recorded = true;
  return CUDA_SUCCESS;
}
CUresult cuEventRecord_ptsz(CUevent e, CUstream s) {
  return cuEventRecord(e, s);
}
CUresult cuEventQuery(CUevent e) {
  auto* ev = reinterpret_cast<Event*>(e);
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  return slicelab_fake_now_ns() >= ev->t ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}
CUresult cuEventSynchronize(CUevent e) {
  auto* ev = reinterpret_cast<Event*>(e);
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  wait_until(ev->t);
  return CUDA_SUCCESS;
}
static CUresult elapsed(float* ms, CUevent a, CUevent b) {
  auto *ea = reinterpret_cast<Event*>(a), *eb = reinterpret_cast<Event*>(b);
  if (!ms || !ea || !eb) return CUDA_ERROR_INVALID_VALUE;
  if (!ea->recorded || !eb->recorded) return CUDA_ERROR_INVALID_HANDLE;
  const int64_t now = slicelab_fake_now_ns();
  if (now < ea->t || now < eb->t) return CUDA_ERROR_NOT_READY;
  *ms = static_cast<float>(static_cast<double>(eb->t - ea->t) / 1e6);
  return CUDA_SUCCESS;
}
CUresult cuEventElapsedTime(float* ms, CUevent a, CUevent b) {
  return elapsed(ms, a, b);
}
CUresult cuEventElapsedTime_v2(float* ms, CUevent a, CUevent b) {
  return elapsed(ms, a, b);
}

CUresult cuModuleLoadData(CUmodule* m, const void*) {
  static int module;
  if (!m) return CUDA_ERROR_INVALID_VALUE;
  *m = reinterpret_cast<CUmodule>(&module);
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction* f, CUmodule, const char* name) {
  static int functions[16];
  if (!f || !name) return CUDA_ERROR_INVALID_VALUE;
  *f = reinterpret_cast<CUfunction>(&functions[std::hash<std::string_view>{}(name) % 16]);
  return CUDA_SUCCESS;
}

// A launch occupies the device for *(uint64_t*)kernelParams[0] ns, or SLICELAB_FAKE_KERNEL_NS.
CUresult cuLaunchKernel(CUfunction f, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, CUstream, void** params, void**) {
  return f ? occupy(kernel_ns(params)) : CUDA_ERROR_INVALID_HANDLE;
}
CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                             unsigned by, unsigned bz, unsigned sh, CUstream s, void** params,
                             void** extra) {
  return cuLaunchKernel(f, gx, gy, gz, bx, by, bz, sh, s, params, extra);
}
CUresult cuLaunchKernelEx(const CUlaunchConfig* c, CUfunction f, void** params, void**) {
  return c && f ? occupy(kernel_ns(params)) : CUDA_ERROR_INVALID_VALUE;
}
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig* c, CUfunction f, void** params, void** e) {
  return cuLaunchKernelEx(c, f, params, e);
}
CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned, unsigned, unsigned, unsigned, unsigned,
                                   unsigned, unsigned, CUstream, void** params) {
  return f ? occupy(kernel_ns(params)) : CUDA_ERROR_INVALID_HANDLE;
}
CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                        unsigned bx, unsigned by, unsigned bz, unsigned sh,
                                        CUstream s, void** params) {
  return cuLaunchCooperativeKernel(f, gx, gy, gz, bx, by, bz, sh, s, params);
}
CUresult cuGraphLaunch(CUgraphExec g, CUstream) {
  return g ? occupy(reinterpret_cast<GraphExec*>(g)->ns) : CUDA_ERROR_INVALID_HANDLE;
}
CUresult cuGraphLaunch_ptsz(CUgraphExec g, CUstream s) {
  return cuGraphLaunch(g, s);
}

CUresult cuGetErrorString(CUresult r, const char** s) {
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  *s = r == CUDA_SUCCESS ? "no error" : r == CUDA_ERROR_OUT_OF_MEMORY ? "out of memory" : "error";
  return CUDA_SUCCESS;
}

// cuGetProcAddress: the driver's version-aware lookup. `symbol` is a base name; the entry with
// the highest introduction version not above `cudaVersion` wins, and the per-thread-stream
// flag selects a _ptsz variant where one exists.
namespace {
struct ProcEntry {
  const char* name;
  int since;
  void* legacy;
  void* ptsz;
};
#define P(fn) reinterpret_cast<void*>(&fn)  // NOLINT(bugprone-macro-parentheses): a name
const ProcEntry kProcs[] = {
    {"cuInit", 2000, P(cuInit), nullptr},
    {"cuDriverGetVersion", 2020, P(cuDriverGetVersion), nullptr},
    {"cuDeviceGet", 2000, P(cuDeviceGet), nullptr},
    {"cuDeviceGetCount", 2000, P(cuDeviceGetCount), nullptr},
    {"cuDeviceTotalMem", 3020, P(cuDeviceTotalMem_v2), nullptr},
    {"cuDevicePrimaryCtxRetain", 7000, P(cuDevicePrimaryCtxRetain), nullptr},
    {"cuCtxSetCurrent", 4000, P(cuCtxSetCurrent), nullptr},
    {"cuCtxGetCurrent", 4000, P(cuCtxGetCurrent), nullptr},
    {"cuCtxGetDevice", 2000, P(cuCtxGetDevice), nullptr},
    {"cuMemGetInfo", 3020, P(cuMemGetInfo_v2), nullptr},
    {"cuMemAlloc", 3020, P(cuMemAlloc_v2), nullptr},
    {"cuMemAllocPitch", 3020, P(cuMemAllocPitch_v2), nullptr},
    {"cuMemAllocManaged", 6000, P(cuMemAllocManaged), nullptr},
    {"cuMemAllocAsync", 11020, P(cuMemAllocAsync), P(cuMemAllocAsync_ptsz)},
    {"cuMemAllocFromPoolAsync", 11020, P(cuMemAllocFromPoolAsync), P(cuMemAllocFromPoolAsync_ptsz)},
    {"cuMemFree", 3020, P(cuMemFree_v2), nullptr},
    {"cuMemFreeAsync", 11020, P(cuMemFreeAsync), P(cuMemFreeAsync_ptsz)},
    {"cuMemCreate", 10020, P(cuMemCreate), nullptr},
    {"cuIpcOpenMemHandle", 11000, P(cuIpcOpenMemHandle_v2), nullptr},
    {"cuIpcCloseMemHandle", 4010, P(cuIpcCloseMemHandle), nullptr},
    {"cuMemRelease", 10020, P(cuMemRelease), nullptr},
    {"cuMemMap", 10020, P(cuMemMap), nullptr},
    {"cuMemImportFromShareableHandle", 10020, P(cuMemImportFromShareableHandle), nullptr},
    {"cuArrayCreate", 3020, P(cuArrayCreate_v2), nullptr},
    {"cuArray3DCreate", 3020, P(cuArray3DCreate_v2), nullptr},
    {"cuArrayDestroy", 2000, P(cuArrayDestroy), nullptr},
    {"cuMipmappedArrayCreate", 5000, P(cuMipmappedArrayCreate), nullptr},
    {"cuMipmappedArrayDestroy", 5000, P(cuMipmappedArrayDestroy), nullptr},
    {"cuStreamCreate", 2000, P(cuStreamCreate), nullptr},
    {"cuStreamSynchronize", 2000, P(cuStreamSynchronize), P(cuStreamSynchronize_ptsz)},
    {"cuEventCreate", 2000, P(cuEventCreate), nullptr},
    {"cuEventRecord", 2000, P(cuEventRecord), P(cuEventRecord_ptsz)},
    {"cuEventQuery", 2000, P(cuEventQuery), nullptr},
    {"cuEventSynchronize", 2000, P(cuEventSynchronize), nullptr},
    {"cuEventElapsedTime", 12080, P(cuEventElapsedTime_v2), nullptr},
    {"cuEventElapsedTime", 2000, P(cuEventElapsedTime), nullptr},
    {"cuLaunchKernel", 4000, P(cuLaunchKernel), P(cuLaunchKernel_ptsz)},
    {"cuLaunchKernelEx", 11060, P(cuLaunchKernelEx), P(cuLaunchKernelEx_ptsz)},
    {"cuLaunchCooperativeKernel", 9000, P(cuLaunchCooperativeKernel),
     P(cuLaunchCooperativeKernel_ptsz)},
    {"cuGraphLaunch", 10000, P(cuGraphLaunch), P(cuGraphLaunch_ptsz)},
    {"cuGetProcAddress", 12000, P(cuGetProcAddress_v2), nullptr},
    {"cuGetProcAddress", 11030, P(cuGetProcAddress), nullptr},
};
#undef P

CUresult proc_address(const char* symbol, void** pfn, int version, cuuint64_t flags,
                      CUdriverProcAddressQueryResult* status) {
  if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  bool seen = false;
  for (const ProcEntry& e : kProcs) {
    if (std::strcmp(e.name, symbol) != 0) continue;
    seen = true;
    if (version < e.since) continue;
    *pfn = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && e.ptsz ? e.ptsz : e.legacy;
    if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
  }
  if (status)
    *status =
        seen ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}
}  // namespace

void* slicelab_fake_proc(const char* symbol, int version, uint64_t flags) {
  void* p = nullptr;
  proc_address(symbol, &p, version, flags, nullptr);
  return p;
}

CUresult cuGetProcAddress(const char* symbol, void** pfn, int version, cuuint64_t flags) {
  return proc_address(symbol, pfn, version, flags, nullptr);
}
CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult* status) {
  return proc_address(symbol, pfn, version, flags, status);
}

}  // extern "C"
