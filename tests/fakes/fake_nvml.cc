// A GPU-free stand-in for libnvidia-ml.so.1, for tests only: device handles and memory and
// process queries that read the fake libcuda's real (uncapped) usage, as nvidia-smi would;
// names, UUIDs and MIG instances for GPU detection (SLICELAB_FAKE_GPU_NAME, _MIG_INSTANCES,
// _MIG_MODE, _MIG_STATE: the file tests/local/fake-nvidia-smi keeps).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

// With SLICELAB_FAKE_MIG_STATE, GPU `gpu`'s instances are the profiles on its line of that
// file ("<gpu> 3g.40gb,1g.10gb"), read on every query as nvidia-smi may have changed them;
// otherwise every GPU has SLICELAB_FAKE_MIG_INSTANCES unnamed ones. Fills `names` if given.
unsigned mig_instances(unsigned gpu = 0, char (*names)[32] = nullptr) {
  if (const char* state = std::getenv("SLICELAB_FAKE_MIG_STATE")) {
    FILE* f = std::fopen(state, "r");
    if (!f) return 0;
    unsigned n = 0, g = 0;
    char list[512];
    while (std::fscanf(f, "%u %511s", &g, list) == 2) {
      if (g != gpu) continue;
      n = 0;
      for (char *save = nullptr, *p = strtok_r(list, ",", &save); p && n < kMaxMig;
           p = strtok_r(nullptr, ",", &save), ++n)
        if (names) std::snprintf(names[n], 32, "%s", p);
    }
    std::fclose(f);
    return n;
  }
  const char* v = std::getenv("SLICELAB_FAKE_MIG_INSTANCES");
  const long n = v ? std::strtol(v, nullptr, 10) : 0;
  return n < 0 ? 0u : n > kMaxMig ? kMaxMig : static_cast<unsigned>(n);
}
bool mig_mode(unsigned gpu) {
  const char* v = std::getenv("SLICELAB_FAKE_MIG_MODE");
  return (v && std::strcmp(v, "1") == 0) || mig_instances(gpu) > 0;
}
// The GiB in a profile's name ("3g.40gb" -> 40), 0 when it has none.
uint64_t profile_gib(const char* profile) {
  const char* dot = std::strchr(profile, '.');
  return dot ? std::strtoull(dot + 1, nullptr, 10) : 0;
}
const MigHandle* mig_of(nvmlDevice_t d) {
  auto* p = reinterpret_cast<MigHandle*>(d);
  auto* first = &g_mig[0][0];
  if (!g_init || p < first || p >= first + (size_t{kMaxDevices} * kMaxMig)) return nullptr;
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
  if (const MigHandle* h = m ? mig_of(d) : nullptr) {
    // A named instance holds its profile's memory, an unnamed one an equal part of the GPU's.
    char names[kMaxMig][32] = {};
    const unsigned n = mig_instances(h->gpu, names);
    const uint64_t gib = h->slot < n ? profile_gib(names[h->slot]) : 0;
    m->total = gib > 0 ? gib << 30 : capacity() / (n > 0 ? n : 1);
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
  if (!name || length == 0) return NVML_ERROR_INVALID_ARGUMENT;
  const char* v = std::getenv("SLICELAB_FAKE_GPU_NAME");
  if (const MigHandle* m = mig_of(d)) {  // as NVML names instances: "<GPU> MIG 1g.10gb"
    char names[kMaxMig][32] = {};
    const unsigned n = mig_instances(m->gpu, names);
    if (m->slot < n && names[m->slot][0])
      std::snprintf(name, length, "%s MIG %s", v ? v : "Fake GPU", names[m->slot]);
    else
      std::snprintf(name, length, "%s MIG", v ? v : "Fake GPU");
    return NVML_SUCCESS;
  }
  if (!valid(d)) return NVML_ERROR_INVALID_ARGUMENT;
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
  *current = *pending = mig_mode(index_of(d)) ? 1 : 0;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned* count) {
  if (!valid(d) || !count) return NVML_ERROR_INVALID_ARGUMENT;
  *count = kMaxMig;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned i, nvmlDevice_t* mig) {
  if (!valid(d) || !mig) return NVML_ERROR_INVALID_ARGUMENT;
  if (i >= mig_instances(index_of(d))) return NVML_ERROR_NOT_FOUND;
  *mig = reinterpret_cast<nvmlDevice_t>(&g_mig[index_of(d)][i]);
  return NVML_SUCCESS;
}

const char* nvmlErrorString(nvmlReturn_t r) {
  return r == NVML_SUCCESS ? "Success" : "Error";
}

}  // extern "C"
