// The interposer's dlsym: hands out the hooks to programs that look driver functions up by name.
// Built without sanitizer instrumentation: sanitizer runtimes call dlsym while they initialise,
// before instrumented code may run.
#include <dlfcn.h>

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

}  // namespace
}  // namespace slicelab::interposer

// glibc resolves RTLD_NEXT (and picks the namespace) from dlsym's return address. So every
// lookup that is not one of our names ends in a tail call, which leaves the program's return
// address in place: this file is always compiled with sibling-call optimisation (-O2).
extern "C" void* dlsym(void* handle, const char* name) {
  using namespace slicelab::interposer;
  if (void* hook = hook_named(name)) {
    // Our name: the hook, provided the object asked exists and has the symbol at all.
    void* p = real_dlsym()(handle == RTLD_NEXT ? RTLD_DEFAULT : handle, name);
    return p ? hook : nullptr;
  }
  return real_dlsym()(handle, name);
}
