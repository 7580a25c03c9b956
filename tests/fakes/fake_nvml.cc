// A GPU-free stand-in for libnvidia-ml.so.1, for tests only: device handles and memory and
// process queries that read the fake libcuda's real (uncapped) usage, as nvidia-smi would;
// names, UUIDs and MIG instances for GPU detection (SLICELAB_FAKE_GPU_NAME, _MIG_INSTANCES).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "backends/interposer/nvml_subset.h"

namespace {

constexpr unsigned kMaxDevices = 8;
struct nvmlDevice_dummy {
  unsigned index;
};
nvmlDevice_dummy g_devices[kMaxDevices] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}};
bool g_init = false;
constexpr unsigned kMaxMig = 7;
struct MigHandle {
  unsigned gpu, slot;
};
MigHandle g_mig[kMaxDevices][kMaxMig];
constexpr int NVML_ERROR_NOT_FOUND = 6;

unsigned mig_instances() {
  const char* v = std::getenv("SLICELAB_FAKE_MIG_INSTANCES");
  const long n = v ? std::strtol(v, nullptr, 10) : 0;
  return n < 0 ? 0u : n > kMaxMig ? kMaxMig : static_cast<unsigned>(n);
}
const MigHandle* mig_of(nvmlDevice_t d) {
  auto* p = reinterpret_cast<MigHandle*>(d);
  auto* first = &g_mig[0][0];
  if (!g_init || p < first || p >= first + kMaxDevices * kMaxMig) return nullptr;
  return p;
}

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
  for (unsigned g = 0; g < kMaxDevices; ++g)
    for (unsigned k = 0; k < kMaxMig; ++k) g_mig[g][k] = {g, k};
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
  if (m && mig_of(d)) {  // an instance holds an equal part of its GPU's memory
    m->total = capacity() / mig_instances();
    m->used = 0;
    m->free = m->total;
    return NVML_SUCCESS;
  }
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
// Detection queries: a name, a UUID per device, and MIG mode with SLICELAB_FAKE_MIG_INSTANCES
// equal instances per GPU (0, the default: MIG disabled).
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* name, unsigned length) {
  if (!valid(d) || !name || length == 0) return NVML_ERROR_INVALID_ARGUMENT;
  const char* v = std::getenv("SLICELAB_FAKE_GPU_NAME");
  std::snprintf(name, length, "%s", v ? v : "Fake GPU");
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* uuid, unsigned length) {
  if (!uuid || length == 0) return NVML_ERROR_INVALID_ARGUMENT;
  if (const MigHandle* m = mig_of(d)) {
    std::snprintf(uuid, length, "MIG-fake-%u-%u", m->gpu, m->slot);
    return NVML_SUCCESS;
  }
  if (!valid(d)) return NVML_ERROR_INVALID_ARGUMENT;
  std::snprintf(uuid, length, "GPU-fake-%04u", index_of(d));
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned* current, unsigned* pending) {
  if (!valid(d) || !current || !pending) return NVML_ERROR_INVALID_ARGUMENT;
  *current = *pending = mig_instances() > 0 ? 1 : 0;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned* count) {
  if (!valid(d) || !count) return NVML_ERROR_INVALID_ARGUMENT;
  *count = kMaxMig;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned i, nvmlDevice_t* mig) {
  if (!valid(d) || !mig) return NVML_ERROR_INVALID_ARGUMENT;
  if (i >= mig_instances()) return NVML_ERROR_NOT_FOUND;
  *mig = reinterpret_cast<nvmlDevice_t>(&g_mig[index_of(d)][i]);
  return NVML_SUCCESS;
}

const char* nvmlErrorString(nvmlReturn_t r) {
  return r == NVML_SUCCESS ? "Success" : "Error";
}

}  // extern "C"
