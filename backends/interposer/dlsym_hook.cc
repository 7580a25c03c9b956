// The interposer's dlsym: hands out the hooks to programs that look driver functions up by name.
// Built without sanitizer instrumentation: sanitizer runtimes call dlsym while they initialise,
// before instrumented code may run.
#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstring>

#include "backends/interposer/hooked_functions.h"
#include "backends/interposer/nvml_subset.h"

namespace slicelab::interposer {

using DlsymFn = void* (*)(void*, const char*);

// The real dlsym, found with dlvsym, which is not hooked: looking it up never comes back here
// (the recursion that hangs HAMi-core under ncu).
DlsymFn real_dlsym() {
  static std::atomic<DlsymFn> fn{nullptr};
  DlsymFn f = fn.load(std::memory_order_acquire);
  if (f) return f;
  for (const char* v : {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17", "GLIBC_2.0"})
    if ((f = reinterpret_cast<DlsymFn>(dlvsym(RTLD_NEXT, "dlsym", v)))) break;
  fn.store(f, std::memory_order_release);
  return f;
}

namespace {

struct Named {
  const char* name;
  void* hook;
};
#define NAMED(name) {#name, reinterpret_cast<void*>(&::name)},
const Named kNamed[] = {SLICELAB_REAL_FUNCTIONS(NAMED) NAMED(nvmlDeviceGetMemoryInfo)
                            NAMED(nvmlDeviceGetMemoryInfo_v2)};
#undef NAMED

void* hook_named(const char* name) {
  if (!name || (name[0] != 'c' && name[0] != 'n')) return nullptr;
  for (const Named& n : kNamed)
    if (std::strcmp(n.name, name) == 0) return n.hook;
  return nullptr;
}

// dlsym(RTLD_NEXT) means "after the caller", and glibc finds the caller from its return address,
// which inside this hook would be us. So the search is redone from the real caller.
void* next_after(const void* caller, const char* name) {
  Dl_info info;
  link_map* self = nullptr;
  if (!dladdr1(caller, &info, reinterpret_cast<void**>(&self), RTLD_DL_LINKMAP) || !self)
    return nullptr;
  for (link_map* m = self->l_next; m; m = m->l_next) {
    void* p = real_dlsym()(m, name);
    if (!p) continue;
    link_map* owner = nullptr;
    if (dladdr1(p, &info, reinterpret_cast<void**>(&owner), RTLD_DL_LINKMAP) && owner == m)
      return p;
  }
  return nullptr;
}

}  // namespace
}  // namespace slicelab::interposer

extern "C" void* dlsym(void* handle, const char* name) {
  using namespace slicelab::interposer;
  void* p = handle == RTLD_NEXT ? next_after(__builtin_return_address(0), name)
                                : real_dlsym()(handle, name);
  if (p) {
    if (void* h = hook_named(name)) return h;
  }
  return p;
}
