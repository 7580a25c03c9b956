// A GPU-free stand-in for libnvidia-ml.so.1, for tests only: device handles and memory and
// process queries that read the fake libcuda's real (uncapped) usage, as nvidia-smi would;
// names, UUIDs and MIG instances for GPU detection (SLICELAB_FAKE_GPU_NAME, _MIG_INSTANCES,
// _MIG_MODE, _MIG_STATE: the file tests/local/fake-nvidia-smi keeps); XID events and lost GPUs
// for health checks, from the lines a test appends to the file SLICELAB_FAKE_NVML_EVENTS names:
//   xid <gpu> <code> [<gi> <ci>]   an nvmlEventTypeXidCriticalError, returned once per event set
//   lost <gpu>                     from then on every query on that GPU is NVML_ERROR_GPU_IS_LOST
//   noevents <gpu>                 nvmlDeviceGetSupportedEventTypes says NOT_SUPPORTED
//   waitfail <code>                the next nvmlEventSetWait returns <code>
// MIG instance <slot> of a GPU has GPU instance id <slot>+1 and compute instance id 0.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

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
// An event set reads the events file from its start (a test writes a fresh file per test, so
// that lines written before the watcher registered are not lost to a race).
struct EventSet {
  bool used = false;
  long offset = 0;
  unsigned long long registered[kMaxDevices] = {};
};
constexpr unsigned kMaxEventSets = 4;
EventSet g_sets[kMaxEventSets];

// Whether the events file holds the line "<verb> <gpu>" (read on every query: a test may append
// it at any time).
bool has_line(const char* verb, unsigned gpu) {
  const char* path = std::getenv("SLICELAB_FAKE_NVML_EVENTS");
  if (!path) return false;
  FILE* f = std::fopen(path, "r");
  if (!f) return false;
  char line[256];
  char word[32];
  unsigned g = 0;
  bool found = false;
  while (!found && std::fgets(line, sizeof line, f))
    found = std::sscanf(line, "%31s %u", word, &g) == 2 && g == gpu && std::strcmp(word, verb) == 0;
  std::fclose(f);
  return found;
}
bool lost(unsigned gpu) {
  return has_line("lost", gpu);
}

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
  if (lost(i)) return NVML_ERROR_GPU_IS_LOST;
  *d = reinterpret_cast<nvmlDevice_t>(&g_devices[i]);
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t d, unsigned* i) {
  if (!valid(d) || !i) return NVML_ERROR_INVALID_ARGUMENT;
  if (lost(index_of(d))) return NVML_ERROR_GPU_IS_LOST;
  *i = index_of(d);
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* m) {
  if (const MigHandle* h = m ? mig_of(d) : nullptr) {
    if (lost(h->gpu)) return NVML_ERROR_GPU_IS_LOST;
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
  if (lost(index_of(d))) return NVML_ERROR_GPU_IS_LOST;
  m->total = capacity();
  m->used = used(index_of(d));
  m->free = m->total - m->used;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t* m) {
  if (!valid(d) || !m || m->version != SLICELAB_NVML_MEMORY_V2) return NVML_ERROR_INVALID_ARGUMENT;
  if (lost(index_of(d))) return NVML_ERROR_GPU_IS_LOST;
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
  if (lost(index_of(d))) return NVML_ERROR_GPU_IS_LOST;
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
    if (lost(m->gpu)) return NVML_ERROR_GPU_IS_LOST;
    char names[kMaxMig][32] = {};
    const unsigned n = mig_instances(m->gpu, names);
    if (m->slot < n && names[m->slot][0])
      std::snprintf(name, length, "%s MIG %s", v ? v : "Fake GPU", names[m->slot]);
    else
      std::snprintf(name, length, "%s MIG", v ? v : "Fake GPU");
    return NVML_SUCCESS;
  }
  if (!valid(d)) return NVML_ERROR_INVALID_ARGUMENT;
  if (lost(index_of(d))) return NVML_ERROR_GPU_IS_LOST;
  std::snprintf(name, length, "%s", v ? v : "Fake GPU");
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* uuid, unsigned length) {
  if (!uuid || length == 0) return NVML_ERROR_INVALID_ARGUMENT;
  if (const MigHandle* m = mig_of(d)) {
    if (lost(m->gpu)) return NVML_ERROR_GPU_IS_LOST;
    std::snprintf(uuid, length, "MIG-fake-%u-%u", m->gpu, m->slot);
    return NVML_SUCCESS;
  }
  if (!valid(d)) return NVML_ERROR_INVALID_ARGUMENT;
  if (lost(index_of(d))) return NVML_ERROR_GPU_IS_LOST;
  std::snprintf(uuid, length, "GPU-fake-%04u", index_of(d));
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned* current, unsigned* pending) {
  if (!valid(d) || !current || !pending) return NVML_ERROR_INVALID_ARGUMENT;
  if (lost(index_of(d))) return NVML_ERROR_GPU_IS_LOST;
  *current = *pending = mig_mode(index_of(d)) ? 1 : 0;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned* count) {
  if (!valid(d) || !count) return NVML_ERROR_INVALID_ARGUMENT;
  if (lost(index_of(d))) return NVML_ERROR_GPU_IS_LOST;
  *count = kMaxMig;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned i, nvmlDevice_t* mig) {
  if (!valid(d) || !mig) return NVML_ERROR_INVALID_ARGUMENT;
  if (lost(index_of(d))) return NVML_ERROR_GPU_IS_LOST;
  if (i >= mig_instances(index_of(d))) return NVML_ERROR_NOT_FOUND;
  *mig = reinterpret_cast<nvmlDevice_t>(&g_mig[index_of(d)][i]);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char* uuid, nvmlDevice_t* d) {
  if (!g_init) return NVML_ERROR_UNINITIALIZED;
  if (!uuid || !d) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned gpu = 0, slot = 0;
  int used_chars = 0;
  if (std::sscanf(uuid, "GPU-fake-%4u%n", &gpu, &used_chars) == 1 && uuid[used_chars] == 0 &&
      gpu < device_count())
    return nvmlDeviceGetHandleByIndex_v2(gpu, d);
  if (std::sscanf(uuid, "MIG-fake-%u-%u%n", &gpu, &slot, &used_chars) == 2 &&
      uuid[used_chars] == 0 && gpu < device_count()) {
    if (lost(gpu)) return NVML_ERROR_GPU_IS_LOST;
    if (slot >= mig_instances(gpu)) return NVML_ERROR_NOT_FOUND;
    *d = reinterpret_cast<nvmlDevice_t>(&g_mig[gpu][slot]);
    return NVML_SUCCESS;
  }
  return NVML_ERROR_NOT_FOUND;
}
nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned* id) {
  const MigHandle* m = mig_of(d);
  if (!id || (!m && !valid(d))) return NVML_ERROR_INVALID_ARGUMENT;
  if (!m) return NVML_ERROR_NOT_SUPPORTED;  // not a MIG device
  if (lost(m->gpu)) return NVML_ERROR_GPU_IS_LOST;
  *id = m->slot + 1;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned* id) {
  const MigHandle* m = mig_of(d);
  if (!id || (!m && !valid(d))) return NVML_ERROR_INVALID_ARGUMENT;
  if (!m) return NVML_ERROR_NOT_SUPPORTED;
  if (lost(m->gpu)) return NVML_ERROR_GPU_IS_LOST;
  *id = 0;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t mig, nvmlDevice_t* d) {
  const MigHandle* m = mig_of(mig);
  if (!m || !d) return NVML_ERROR_INVALID_ARGUMENT;
  return nvmlDeviceGetHandleByIndex_v2(m->gpu, d);
}

// --- events ---
nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set) {
  if (!g_init) return NVML_ERROR_UNINITIALIZED;
  if (!set) return NVML_ERROR_INVALID_ARGUMENT;
  for (EventSet& s : g_sets) {
    if (s.used) continue;
    s = EventSet{};
    s.used = true;
    set->handle = reinterpret_cast<nvmlEventSet_st*>(&s);
    return NVML_SUCCESS;
  }
  return NVML_ERROR_UNKNOWN;
}
}  // extern "C"

namespace {
EventSet* event_set_of(nvmlEventSet_t set) {
  auto* p = reinterpret_cast<EventSet*>(set.handle);
  return g_init && p >= g_sets && p < g_sets + kMaxEventSets && p->used ? p : nullptr;
}
// The next complete line of the events file after `s`'s offset, or false.
bool next_line(EventSet& s, char* line, int size) {
  const char* path = std::getenv("SLICELAB_FAKE_NVML_EVENTS");
  FILE* f = path ? std::fopen(path, "r") : nullptr;
  if (!f) return false;
  bool got = false;
  if (std::fseek(f, s.offset, SEEK_SET) == 0 && std::fgets(line, size, f)) {
    const size_t n = std::strlen(line);
    got = n > 0 && line[n - 1] == '\n';  // a line still being written waits for its end
    if (got) s.offset = std::ftell(f);
  }
  std::fclose(f);
  return got;
}
int64_t now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1000000;
}
}  // namespace

extern "C" {
nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t d, unsigned long long* types) {
  if (!valid(d) || !types) return NVML_ERROR_INVALID_ARGUMENT;
  if (lost(index_of(d))) return NVML_ERROR_GPU_IS_LOST;
  if (has_line("noevents", index_of(d))) return NVML_ERROR_NOT_SUPPORTED;
  *types = kNvmlEventTypeSingleBitEccError | kNvmlEventTypeDoubleBitEccError |
           kNvmlEventTypeXidCriticalError;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types,
                                      nvmlEventSet_t set) {
  EventSet* s = event_set_of(set);
  if (!valid(d) || !s) return NVML_ERROR_INVALID_ARGUMENT;
  if (lost(index_of(d))) return NVML_ERROR_GPU_IS_LOST;
  if (has_line("noevents", index_of(d))) return NVML_ERROR_NOT_SUPPORTED;
  s->registered[index_of(d)] |= types;
  return NVML_SUCCESS;
}
// Returns each new "xid" line for a GPU registered for XID events once; polls the file every
// 5 ms until `timeout_ms` passes.
nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t* data, unsigned timeout_ms) {
  EventSet* s = event_set_of(set);
  if (!s || !data) return NVML_ERROR_INVALID_ARGUMENT;
  const int64_t deadline = now_ms() + timeout_ms;
  for (;;) {
    char line[256];
    while (next_line(*s, line, sizeof line)) {
      unsigned gpu = 0, gi = kNvmlNoInstance, ci = kNvmlNoInstance;
      unsigned long long code = 0;
      int failure = 0;
      if (std::sscanf(line, "waitfail %d", &failure) == 1) return failure;
      const int fields = std::sscanf(line, "xid %u %llu %u %u", &gpu, &code, &gi, &ci);
      if (fields < 2 || gpu >= device_count() ||
          (s->registered[gpu] & kNvmlEventTypeXidCriticalError) == 0)
        continue;
      if (fields < 4) gi = ci = kNvmlNoInstance;
      *data = nvmlEventData_t{reinterpret_cast<nvmlDevice_t>(&g_devices[gpu]),
                              kNvmlEventTypeXidCriticalError, code, gi, ci};
      return NVML_SUCCESS;
    }
    if (now_ms() >= deadline) return NVML_ERROR_TIMEOUT;
    usleep(5000);
  }
}
// The v1 entry point fills the older, shorter struct (no instance ids).
struct nvmlEventData_v1 {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;
};
nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_v1* data, unsigned timeout_ms) {
  if (!data) return NVML_ERROR_INVALID_ARGUMENT;
  nvmlEventData_t full{};
  const nvmlReturn_t r = nvmlEventSetWait_v2(set, &full, timeout_ms);
  if (r == NVML_SUCCESS) *data = nvmlEventData_v1{full.device, full.eventType, full.eventData};
  return r;
}
nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
  EventSet* s = event_set_of(set);
  if (!s) return NVML_ERROR_INVALID_ARGUMENT;
  s->used = false;
  return NVML_SUCCESS;
}

const char* nvmlErrorString(nvmlReturn_t r) {
  return r == NVML_SUCCESS ? "Success" : "Error";
}

}  // extern "C"
