// A GPU-free stand-in for libnvidia-ml.so.1, for tests only: device handles and memory and
// process queries that read the fake libcuda's real (uncapped) usage, as nvidia-smi would.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#include "backends/interposer/nvml_subset.h"

namespace {

constexpr unsigned kMaxDevices = 8;
struct nvmlDevice_dummy {
  unsigned index;
};
nvmlDevice_dummy g_devices[kMaxDevices] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}};
bool g_init = false;

unsigned device_count() {
  const char* v = std::getenv("SLICELAB_FAKE_DEVICES");
  const long n = v ? std::strtol(v, nullptr, 10) : 2;
  return n < 1 ? 1u : n > 8 ? 8u : static_cast<unsigned>(n);
}
uint64_t capacity() {
  const char* v = std::getenv("SLICELAB_FAKE_DEVICE_MEM");
  return v ? std::strtoull(v, nullptr, 10) : uint64_t{16} << 30;
}
// The fake libcuda owns the device state; NVML reads it like the real one reads the GPU.
uint64_t used(unsigned dev) {
  using Fn = uint64_t (*)(int);
  static Fn fn = [] {
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!h) h = dlopen("libcuda.so.1", RTLD_NOW);
    return h ? reinterpret_cast<Fn>(dlsym(h, "slicelab_fake_used_bytes")) : nullptr;
  }();
  return fn ? fn(static_cast<int>(dev)) : 0;
}
bool valid(nvmlDevice_t d) {
  auto* p = reinterpret_cast<nvmlDevice_dummy*>(d);
  return g_init && p >= g_devices && p < g_devices + device_count();
}
unsigned index_of(nvmlDevice_t d) {
  return reinterpret_cast<nvmlDevice_dummy*>(d)->index;
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlInit_v2(void) {
  g_init = true;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlInit(void) {
  return nvmlInit_v2();
}
nvmlReturn_t nvmlShutdown(void) {
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* n) {
  if (!g_init) return NVML_ERROR_UNINITIALIZED;
  if (!n) return NVML_ERROR_INVALID_ARGUMENT;
  *n = device_count();
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t* d) {
  if (!g_init) return NVML_ERROR_UNINITIALIZED;
  if (!d || i >= device_count()) return NVML_ERROR_INVALID_ARGUMENT;
  *d = reinterpret_cast<nvmlDevice_t>(&g_devices[i]);
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t d, unsigned* i) {
  if (!valid(d) || !i) return NVML_ERROR_INVALID_ARGUMENT;
  *i = index_of(d);
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* m) {
  if (!valid(d) || !m) return NVML_ERROR_INVALID_ARGUMENT;
  m->total = capacity();
  m->used = used(index_of(d));
  m->free = m->total - m->used;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t* m) {
  if (!valid(d) || !m || m->version != SLICELAB_NVML_MEMORY_V2) return NVML_ERROR_INVALID_ARGUMENT;
  m->total = capacity();
  m->reserved = 0;
  m->used = used(index_of(d));
  m->free = m->total - m->used;
  return NVML_SUCCESS;
}
// One process (this one) holds everything the fake device has handed out.
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned* count,
                                                     nvmlProcessInfo_t* infos) {
  if (!valid(d) || !count) return NVML_ERROR_INVALID_ARGUMENT;
  const uint64_t u = used(index_of(d));
  const unsigned n = u > 0 ? 1 : 0;
  if (*count < n) {
    *count = n;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  *count = n;
  if (n) infos[0] = nvmlProcessInfo_t{static_cast<unsigned>(getpid()), u, 0xFFFFFFFFu, 0xFFFFFFFFu};
  return NVML_SUCCESS;
}
const char* nvmlErrorString(nvmlReturn_t r) {
  return r == NVML_SUCCESS ? "Success" : "Error";
}

}  // extern "C"
