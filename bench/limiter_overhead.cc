// What the interposer adds to a driver call: the same calls straight to the fake driver and
// through libslicelab-interposer.so, in one process run, so that bench/check-overhead can compare
// the difference with a committed baseline.
#include <benchmark/benchmark.h>
#include <cuda.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace {

using LaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void**, void**);
using AllocFn = CUresult (*)(CUdeviceptr*, size_t);
using FreeFn = CUresult (*)(CUdeviceptr);
using ProcFn = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

struct Api {
  LaunchFn launch;
  AllocFn alloc;
  FreeFn free;
  ProcFn proc;
};

template <class T>
T sym(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (!p) {
    std::fprintf(stderr, "limiter_overhead: %s not found: %s\n", name, dlerror());
    std::exit(1);
  }
  return reinterpret_cast<T>(p);
}

Api g_direct, g_interposed;
CUfunction g_fn;

void setup() {
  // Under budget: a 50% compute cap with kernels that take no device time, and a memory cap far
  // above what the benchmark holds. The region is private to the process. The fake's virtual
  // clock keeps the timing events at zero elapsed time: on the wall clock they would time the
  // CPU cost of the launch call itself as GPU time, the loop would exceed its 50% and the
  // figure would include throttling sleeps instead of the hooks' cost.
  setenv("SLICELAB_SM_LIMIT", "50", 1);
  setenv("SLICELAB_MEMORY_LIMIT", "1g", 1);
  setenv("SLICELAB_FAKE_KERNEL_NS", "0", 1);
  setenv("SLICELAB_FAKE_VIRTUAL_TIME", "1", 1);
  unsetenv("SLICELAB_SHARED_REGION");
  unsetenv("CUDA_DEVICE_MEMORY_SHARED_CACHE");
  void* cuda = dlopen(SLICELAB_FAKES "/libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  void* ip = cuda ? dlopen(SLICELAB_INTERPOSER, RTLD_NOW | RTLD_LOCAL) : nullptr;
  if (!ip) {
    std::fprintf(stderr, "limiter_overhead: cannot load the fake driver or the interposer: %s\n",
                 dlerror());
    std::exit(1);
  }
  for (auto [lib, api] : {std::pair{cuda, &g_direct}, std::pair{ip, &g_interposed}})
    *api = Api{sym<LaunchFn>(lib, "cuLaunchKernel"), sym<AllocFn>(lib, "cuMemAlloc_v2"),
               sym<FreeFn>(lib, "cuMemFree_v2"), sym<ProcFn>(lib, "cuGetProcAddress_v2")};
  CUcontext ctx;
  CUmodule m;
  sym<CUresult (*)(unsigned)>(cuda, "cuInit")(0);
  sym<CUresult (*)(CUcontext*, CUdevice)>(cuda, "cuDevicePrimaryCtxRetain")(&ctx, 0);
  sym<CUresult (*)(CUcontext)>(cuda, "cuCtxSetCurrent")(ctx);
  sym<CUresult (*)(CUmodule*, const void*)>(cuda, "cuModuleLoadData")(&m, "");
  sym<CUresult (*)(CUfunction*, CUmodule, const char*)>(cuda, "cuModuleGetFunction")(&g_fn, m, "k");
}

const Api& api(const benchmark::State& s) {
  return s.range(0) ? g_interposed : g_direct;
}

void BM_LaunchKernel(benchmark::State& state) {
  const Api& a = api(state);
  for (auto _ : state)
    benchmark::DoNotOptimize(a.launch(g_fn, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr));
}

void BM_MemAllocFree(benchmark::State& state) {
  const Api& a = api(state);
  for (auto _ : state) {
    CUdeviceptr p = 0;
    benchmark::DoNotOptimize(a.alloc(&p, 4096));
    a.free(p);
  }
}

void BM_GetProcAddress(benchmark::State& state) {
  const Api& a = api(state);
  for (auto _ : state) {
    void* fn = nullptr;
    benchmark::DoNotOptimize(a.proc("cuLaunchKernel", &fn, 13000, 0, nullptr));
    benchmark::DoNotOptimize(fn);
  }
}

// Arg 0: straight to the fake driver; arg 1: through the interposer.
BENCHMARK(BM_LaunchKernel)->ArgName("interposed")->Arg(0)->Arg(1);
BENCHMARK(BM_MemAllocFree)->ArgName("interposed")->Arg(0)->Arg(1);
BENCHMARK(BM_GetProcAddress)->ArgName("interposed")->Arg(0)->Arg(1);

}  // namespace

int main(int argc, char** argv) {
  setup();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
