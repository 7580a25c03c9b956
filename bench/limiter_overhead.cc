// What the interposer adds to a driver call: the same calls straight to the fake driver and
// through libslicelab-interposer.so, in one process run. `--instructions`, run under callgrind,
// marks the counts bench/check-overhead gates on; `--paired` prints the wall-clock figures it
// reports beside them; without either, the usual Google Benchmark runs.
#include <benchmark/benchmark.h>
#include <cuda.h>
#include <dlfcn.h>
#ifdef SLICELAB_HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

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
CUresult (*g_sync)() = nullptr;  // the real driver's cuCtxSynchronize (--driver); none on the fake

// An empty kernel `k` in PTX, for a real driver (it compiles it for the GPU at load); the fake
// takes any image.
constexpr const char* kEmptyKernelPtx =
    ".version 7.0\n.target sm_50\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";

void check_driver(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  std::fprintf(stderr, "limiter_overhead: %s failed on the driver (CUresult %d)\n", what,
               static_cast<int>(r));
  std::exit(r == CUDA_ERROR_NO_DEVICE || r == CUDA_ERROR_NOT_INITIALIZED ? 3 : 1);
}

// `driver`: null for the fake driver (the gate's setup), else a real libcuda.so.1 (--driver):
// scripts/gpu-check measures what the interposer adds on a GPU with the same calls.
void setup(const char* interposer, const char* driver) {
  const bool fake = driver == nullptr;
  if (fake) {
    // Under budget: a 50% compute cap with kernels that take no device time, and a memory cap
    // far above what the benchmark holds. The region is private to the process. The fake's
    // virtual clock keeps the timing events at zero elapsed time: on the wall clock they would
    // time the CPU cost of the launch call itself as GPU time, the loop would exceed its 50% and
    // the figure would include throttling sleeps instead of the hooks' cost.
    setenv("SLICELAB_SM_LIMIT", "50", 1);
    setenv("SLICELAB_FAKE_KERNEL_NS", "0", 1);
    setenv("SLICELAB_FAKE_VIRTUAL_TIME", "1", 1);
  } else {
    // A real GPU runs the empty kernels for real, and on its wall clock a compute cap would
    // throttle this loop of back-to-back launches: the launch figure would be the throttle's.
    // So no compute cap here (the launch path counts the launch and passes it on); the memory
    // cap applies as on the fake.
    unsetenv("SLICELAB_SM_LIMIT");
    unsetenv("CUDA_DEVICE_SM_LIMIT");
  }
  setenv("SLICELAB_MEMORY_LIMIT", "1g", 1);
  unsetenv("SLICELAB_SHARED_REGION");
  unsetenv("CUDA_DEVICE_MEMORY_SHARED_CACHE");
  void* cuda = dlopen(fake ? SLICELAB_FAKES "/libcuda.so.1" : driver, RTLD_NOW | RTLD_GLOBAL);
  void* ip = cuda ? dlopen(interposer, RTLD_NOW | RTLD_LOCAL) : nullptr;
  if (!ip) {
    std::fprintf(stderr, "limiter_overhead: cannot load the %s driver or the interposer: %s\n",
                 fake ? "fake" : "real", dlerror());
    std::exit(1);
  }
  for (auto [lib, api] : {std::pair{cuda, &g_direct}, std::pair{ip, &g_interposed}})
    *api = Api{sym<LaunchFn>(lib, "cuLaunchKernel"), sym<AllocFn>(lib, "cuMemAlloc_v2"),
               sym<FreeFn>(lib, "cuMemFree_v2"), sym<ProcFn>(lib, "cuGetProcAddress_v2")};
  CUcontext ctx;
  CUmodule m;
  check_driver(sym<CUresult (*)(unsigned)>(cuda, "cuInit")(0), "cuInit");
  check_driver(sym<CUresult (*)(CUcontext*, CUdevice)>(cuda, "cuDevicePrimaryCtxRetain")(&ctx, 0),
               "cuDevicePrimaryCtxRetain");
  check_driver(sym<CUresult (*)(CUcontext)>(cuda, "cuCtxSetCurrent")(ctx), "cuCtxSetCurrent");
  check_driver(sym<CUresult (*)(CUmodule*, const void*)>(cuda, "cuModuleLoadData")(
                   &m, fake ? "" : kEmptyKernelPtx),
               "cuModuleLoadData");
  check_driver(sym<CUresult (*)(CUfunction*, CUmodule, const char*)>(cuda, "cuModuleGetFunction")(
                   &g_fn, m, "k"),
               "cuModuleGetFunction");
  if (!fake) {
    g_sync = sym<CUresult (*)()>(cuda, "cuCtxSynchronize");
    int version = 0;
    sym<CUresult (*)(int*)>(cuda, "cuDriverGetVersion")(&version);
    // scripts/gpu-check's report quotes this line.
    std::fprintf(stderr,
                 "limiter_overhead: driver %s, CUDA %d.%d; memory cap 1 GiB, no compute cap; an "
                 "empty kernel of one warp per launch, 4 KiB per allocation\n",
                 driver, version / 1000, version % 1000 / 10);
  }
}

const Api& api(const benchmark::State& s) {
  return s.range(0) ? g_interposed : g_direct;
}

// One call of each measured operation (the same code in both modes).
void launch_kernel(const Api& a) {
  benchmark::DoNotOptimize(a.launch(g_fn, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr));
}
void mem_alloc_free(const Api& a) {
  CUdeviceptr p = 0;
  benchmark::DoNotOptimize(a.alloc(&p, 4096));
  a.free(p);
}
void get_proc_address(const Api& a) {
  void* fn = nullptr;
  benchmark::DoNotOptimize(a.proc("cuLaunchKernel", &fn, 13000, 0, nullptr));
  benchmark::DoNotOptimize(fn);
}

void BM_LaunchKernel(benchmark::State& state) {
  const Api& a = api(state);
  for (auto _ : state) launch_kernel(a);
}

void BM_MemAllocFree(benchmark::State& state) {
  const Api& a = api(state);
  for (auto _ : state) mem_alloc_free(a);
}

void BM_GetProcAddress(benchmark::State& state) {
  const Api& a = api(state);
  for (auto _ : state) get_proc_address(a);
}

// Arg 0: straight to the fake driver; arg 1: through the interposer.
BENCHMARK(BM_LaunchKernel)->ArgName("interposed")->Arg(0)->Arg(1);
BENCHMARK(BM_MemAllocFree)->ArgName("interposed")->Arg(0)->Arg(1);
BENCHMARK(BM_GetProcAddress)->ArgName("interposed")->Arg(0)->Arg(1);

// ---- --paired: the wall-clock figures the gate reports (information, no verdict) ----
// The added cost beside the direct call's cost measured in the same moments, so that the
// machine's speed and load move the figure less (they still do, by 20% and more): each round times
// a batch of direct calls and a batch of interposed calls back to back (in alternating order, so
// that neither side always runs second), in this thread's CPU time (time spent descheduled by other
// builders does not count), and the figures are medians over the rounds.
struct Op {
  const char* name = nullptr;
  void (*call)(const Api&) = nullptr;
  long batch = 1;  // calls per batch, sized to ~kBatchNs of direct calls
  std::vector<double> direct, interposed, ratio;
};

constexpr double kBatchNs = 200e3;

double thread_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

double per_call_ns(const Op& op, const Api& a) {
  const double t0 = thread_ns();
  for (long i = 0; i < op.batch; ++i) op.call(a);
  const double ns = (thread_ns() - t0) / static_cast<double>(op.batch);
  // A real GPU's queue of launches is drained between batches, outside the timing, so that no
  // batch waits for room in it.
  if (g_sync) g_sync();
  return ns;
}

// The measured operations, in the order both modes report them.
std::vector<Op> ops() {
  std::vector<Op> v(3);
  v[0].name = "LaunchKernel";
  v[0].call = launch_kernel;
  v[1].name = "MemAllocFree";
  v[1].call = mem_alloc_free;
  v[2].name = "GetProcAddress";
  v[2].call = get_proc_address;
  return v;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Prints "op direct_ns interposed_ns added_ns ratio rounds" per operation, where ratio is the
// median over rounds of (interposed - direct) / direct: the added cost in direct calls.
int run_paired(int rounds) {
  std::vector<Op> measured = ops();
  for (Op& op : measured) {  // warm both paths, then size the batch from the direct call's cost
    op.batch = 1000;
    per_call_ns(op, g_interposed);
    const double ns = std::max(per_call_ns(op, g_direct), 1.0);
    op.batch = std::max(100L, static_cast<long>(kBatchNs / ns));
  }
  for (int r = 0; r < rounds; ++r)
    for (Op& op : measured) {
      double d = 0;
      double i = 0;
      if (r % 2) {
        i = per_call_ns(op, g_interposed);
        d = per_call_ns(op, g_direct);
      } else {
        d = per_call_ns(op, g_direct);
        i = per_call_ns(op, g_interposed);
      }
      op.direct.push_back(d);
      op.interposed.push_back(i);
      op.ratio.push_back((i - d) / d);
    }
  for (const Op& op : measured) {
    std::vector<double> added(op.direct.size());
    for (size_t k = 0; k < added.size(); ++k) added[k] = op.interposed[k] - op.direct[k];
    std::printf("%s %.2f %.2f %.2f %.4f %d\n", op.name, median(op.direct), median(op.interposed),
                median(added), median(op.ratio), rounds);
  }
  return 0;
}

// ---- --instructions: the gate's verdict ----
// Instructions, not time: under callgrind a call executes the same instructions however loaded
// or fast the machine is, so a 30% rise of the added work is seen as 30% every time. Each
// operation's calls are counted in a dump of their own ("<op> <direct|interposed> <calls>"),
// started from zero just before the loop and written just after it, for this thread only
// (callgrind --separate-threads=yes keeps any other thread's work out); bench/check-overhead
// reads the dumps' summaries. The loop is the same code on both sides, so its own instructions
// cancel in interposed - direct.
#ifdef SLICELAB_HAVE_CALLGRIND
constexpr long kWarmCalls = 256;  // past every first-call path (the thread's pacer, lookups)

void count_calls(const Op& op, const Api& a, const char* side, long calls) {
  char label[96];
  std::snprintf(label, sizeof label, "%s %s %ld", op.name, side, calls);
  CALLGRIND_ZERO_STATS;
  for (long i = 0; i < calls; ++i) op.call(a);
  CALLGRIND_DUMP_STATS_AT(label);
}

int run_counted(long calls) {
  if (!RUNNING_ON_VALGRIND) {
    std::fprintf(stderr,
                 "limiter_overhead: --instructions counts under callgrind: run it as valgrind "
                 "--tool=callgrind --separate-threads=yes build/bench/limiter_overhead "
                 "--instructions (bench/check-overhead does)\n");
    return 2;
  }
  for (Op& op : ops()) {
    for (long i = 0; i < kWarmCalls; ++i) {
      op.call(g_direct);
      op.call(g_interposed);
    }
    count_calls(op, g_direct, "direct", calls);
    count_calls(op, g_interposed, "interposed", calls);
  }
  return 0;
}
#else
int run_counted(long) {
  std::fprintf(stderr,
               "limiter_overhead: built without valgrind/callgrind.h, so --instructions cannot "
               "count (apt-get install valgrind, then configure the build again)\n");
  return 2;
}
#endif

}  // namespace

// Own flags (before Google Benchmark's): --interposer=PATH loads another build of the interposer
// (bench/check-overhead's deliberately slowed one); --driver=PATH calls a real libcuda.so.1
// instead of the fake (scripts/gpu-check, with --paired); --instructions[=CALLS] counts the gate's
// figures under callgrind (CALLS per operation and side, a multiple of 64 so that the launch
// path's one-in-32 timed launch averages out exactly); --paired[=ROUNDS] times them.
int main(int argc, char** argv) {
  const char* interposer = SLICELAB_INTERPOSER;
  const char* driver = nullptr;
  int rounds = 0;
  long calls = 0;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--interposer=", 0) == 0) {
      interposer = argv[i] + std::strlen("--interposer=");
    } else if (arg.rfind("--driver=", 0) == 0) {
      driver = argv[i] + std::strlen("--driver=");
    } else if (arg == "--paired") {
      rounds = 301;
    } else if (arg.rfind("--paired=", 0) == 0) {
      rounds = std::max(1, std::atoi(argv[i] + std::strlen("--paired=")));
    } else if (arg == "--instructions") {
      calls = 3200;
    } else if (arg.rfind("--instructions=", 0) == 0) {
      calls = std::max(1L, std::atol(argv[i] + std::strlen("--instructions=")));
    } else {
      rest.push_back(argv[i]);
    }
  }
  setup(interposer, driver);
  if (calls) return run_counted(calls);
  if (rounds) return run_paired(rounds);
  argc = static_cast<int>(rest.size());
  argv = rest.data();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
