// slicelab-kernel: runs one micro-kernel for a number of repetitions or a duration on one GPU
// (or on every visible one, a host thread each) and prints one JSON object; the harness and the
// local backend start it as a process.
// Usage: slicelab-kernel <name> [--reps N | --duration S] [--device D|all] [--hold-mib M]
//                        [--scale F] | --list
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "kernels/kernel_catalog.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kTriadElems = 16 * 1024 * 1024;
constexpr int kFmaBlocks = 80, kFmaThreads = 1024, kFmaIters = 4096;
constexpr int kMixElems = 1024 * 1024, kMixKernels = 8;
constexpr int kGraphKernels = 20;
constexpr size_t kChurnBytes = size_t{64} << 20;

__global__ void empty_kernel() {}

__global__ void fma_kernel(float* out, float seed, int iters) {
  float a = seed + threadIdx.x, b = a * 0.5f, c = a * 0.25f, d = a * 0.125f;
  for (int i = 0; i < iters; ++i) {  // four independent chains hide FMA latency
    a = fmaf(a, 0.9999f, 0.0001f);
    b = fmaf(b, 0.9999f, 0.0001f);
    c = fmaf(c, 0.9999f, 0.0001f);
    d = fmaf(d, 0.9999f, 0.0001f);
  }
  // Written only on an impossible value, so the chains are not optimised away.
  if (a + b + c + d == -1.0f) out[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

__global__ void triad_kernel(float* a, const float* b, const float* c, float s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    a[i] = b[i] + s * c[i];
}

__global__ void scale_kernel(float* x, int n, float s) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * s + 1.0f;
}

struct Args {
  std::string kernel;
  long reps = 0;  // 0: run for `duration_s`
  double duration_s = 0;
  int device = 0;     // -1: every visible device ("--device all")
  long hold_mib = 0;  // allocate and hold this much before running (memory-isolation tests)
  double scale = 1;   // fma only: each unit does `scale` times the work of the catalog's unit
};

// fma at --scale F: one kernel of F x 4096 iterations (at least 1). Below 1 the stream is
// synchronised every ceil(1/F) units instead of every unit, so that short kernels run back to
// back (as a training loop's do) and keep the GPU as busy as the full-size kernel does.
int fma_iters(double scale) {
  return std::max(1, static_cast<int>(std::lround(kFmaIters * scale)));
}
long fma_sync_every(double scale) {
  return scale >= 1 ? 1 : static_cast<long>(std::ceil(1 / scale - 1e-9));
}

[[noreturn]] void fail(int code, const char* what, const char* detail) {
  std::printf("{\"error\": \"%s\", \"detail\": \"%s\"}\n", what, detail);
  std::fflush(stdout);
  std::exit(code);
}

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  if (e == cudaErrorMemoryAllocation) fail(slicelab::kKernelExitOutOfMemory, "out of memory", what);
  fail(slicelab::kKernelExitCudaError, cudaGetErrorString(e), what);
}

// One workload: setup once, then `unit()` repeated; each unit ends synchronised, so elapsed
// wall time over units is the device-and-host time of that much work.
struct Workload {
  float* a = nullptr;
  float* b = nullptr;
  float* c = nullptr;
  cudaStream_t stream = nullptr;
  cudaGraphExec_t graph = nullptr;
};

void setup(const std::string& k, Workload& w) {
  check(cudaStreamCreateWithFlags(&w.stream, cudaStreamNonBlocking), "cudaStreamCreate");
  if (k == "fma") check(cudaMalloc(&w.a, sizeof(float) * kFmaBlocks * kFmaThreads), "cudaMalloc");
  if (k == "triad") {
    for (float** p : {&w.a, &w.b, &w.c}) {
      check(cudaMalloc(p, sizeof(float) * kTriadElems), "cudaMalloc");
      check(cudaMemset(*p, 0, sizeof(float) * kTriadElems), "cudaMemset");
    }
  }
  if (k == "inference-mix") {
    check(cudaMalloc(&w.a, sizeof(float) * kMixElems), "cudaMalloc");
    check(cudaMemset(w.a, 0, sizeof(float) * kMixElems), "cudaMemset");
  }
  if (k == "graph-replay") {
    cudaGraph_t g;
    check(cudaStreamBeginCapture(w.stream, cudaStreamCaptureModeThreadLocal), "capture");
    for (int i = 0; i < kGraphKernels; ++i) empty_kernel<<<1, 32, 0, w.stream>>>();
    check(cudaStreamEndCapture(w.stream, &g), "capture");
    check(cudaGraphInstantiate(&w.graph, g, 0), "cudaGraphInstantiate");
    check(cudaGraphDestroy(g), "cudaGraphDestroy");
  }
  check(cudaDeviceSynchronize(), "setup");
}

// Launch-storm and graph replay synchronise every 64 units, not every unit: they measure the
// launch path, which a per-unit sync would hide behind its own round trip.
void unit(const std::string& k, const Args& args, Workload& w, long i, bool last) {
  if (k == "launch-storm") {
    empty_kernel<<<1, 32, 0, w.stream>>>();
    if (last || i % 64 == 63) check(cudaStreamSynchronize(w.stream), "launch-storm");
  } else if (k == "fma") {
    fma_kernel<<<kFmaBlocks, kFmaThreads, 0, w.stream>>>(w.a, 1.0f + static_cast<float>(i % 7),
                                                         fma_iters(args.scale));
    const long every = fma_sync_every(args.scale);
    if (last || i % every == every - 1) check(cudaStreamSynchronize(w.stream), "fma");
  } else if (k == "triad") {
    triad_kernel<<<1024, 256, 0, w.stream>>>(w.a, w.b, w.c, 3.0f, kTriadElems);
    check(cudaStreamSynchronize(w.stream), "triad");
  } else if (k == "alloc-churn") {
    void* p = nullptr;
    check(cudaMalloc(&p, kChurnBytes), "cudaMalloc");
    check(cudaFree(p), "cudaFree");
  } else if (k == "graph-replay") {
    check(cudaGraphLaunch(w.graph, w.stream), "cudaGraphLaunch");
    if (last || i % 64 == 63) check(cudaStreamSynchronize(w.stream), "graph-replay");
  } else if (k == "inference-mix") {
    for (int j = 0; j < kMixKernels; ++j)
      scale_kernel<<<(kMixElems + 255) / 256, 256, 0, w.stream>>>(w.a, kMixElems, 0.5f);
    check(cudaStreamSynchronize(w.stream), "inference-mix");
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

Args parse(int argc, char** argv) {
  Args a;
  if (argc >= 2 && std::strcmp(argv[1], "--list") == 0) {
    for (const auto& k : slicelab::kernel_catalog())
      std::printf("%-14.*s %.*s\n", static_cast<int>(k.name.size()), k.name.data(),
                  static_cast<int>(k.description.size()), k.description.data());
    std::exit(0);
  }
  if (argc < 2 || !slicelab::find_kernel(argv[1]))
    fail(slicelab::kKernelExitUsage, "usage",
         "slicelab-kernel <name> [--reps N | --duration S] [--device D|all] [--hold-mib M] "
         "[--scale F] | --list");
  a.kernel = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string opt = argv[i];
    const char* v = argv[i + 1];
    if (opt == "--reps")
      a.reps = std::atol(v);
    else if (opt == "--duration")
      a.duration_s = std::atof(v);
    else if (opt == "--device")
      a.device = std::strcmp(v, "all") == 0 ? -1 : std::atoi(v);
    else if (opt == "--hold-mib")
      a.hold_mib = std::atol(v);
    else if (opt == "--scale")
      a.scale = std::atof(v);
    else
      fail(slicelab::kKernelExitUsage, "unknown option", argv[i]);
  }
  if (!(a.scale >= 1.0 / kFmaIters && a.scale <= 1e5))
    fail(slicelab::kKernelExitUsage, "bad --scale", "expected a factor in 1/4096..100000");
  if (a.scale != 1 && a.kernel != "fma")
    fail(slicelab::kKernelExitUsage, "bad --scale", "--scale applies to fma only");
  if (a.reps <= 0 && a.duration_s <= 0) a.reps = 100;
  return a;
}

// The work on one device: `--hold-mib` held there, the kernel's units run on its own stream.
struct DeviceRun {
  long units = 0;
  double elapsed_s = 0;
};

DeviceRun run_on(int device, const Args& args) {
  check(cudaSetDevice(device), "cudaSetDevice");
  void* held = nullptr;
  if (args.hold_mib > 0)
    check(cudaMalloc(&held, static_cast<size_t>(args.hold_mib) << 20), "hold allocation");
  Workload w;
  setup(args.kernel, w);
  const auto t0 = Clock::now();
  const auto stop = t0 + std::chrono::duration<double>(args.duration_s);
  DeviceRun r;
  while (args.reps > 0 ? r.units < args.reps : Clock::now() < stop) {
    const bool last = args.reps > 0 ? r.units + 1 == args.reps : false;
    unit(args.kernel, args, w, r.units, last);
    ++r.units;
  }
  check(cudaStreamSynchronize(w.stream), "final sync");
  r.elapsed_s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (held) cudaFree(held);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
    fail(slicelab::kKernelExitNoGpu, "no GPU", "cudaGetDeviceCount found no usable device");
  if (args.device >= count) fail(slicelab::kKernelExitUsage, "no such device", "--device");
  // A multi-GPU pod runs the kernel on each of its GPUs at once, as a data-parallel job would.
  std::vector<int> devices;
  if (args.device < 0)
    for (int d = 0; d < count; ++d) devices.push_back(d);
  else
    devices.push_back(args.device);
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, devices.front()), "cudaGetDeviceProperties");
  std::vector<DeviceRun> runs(devices.size());
  {
    std::vector<std::thread> threads;
    for (size_t i = 0; i < devices.size(); ++i)
      threads.emplace_back([&, i] { runs[i] = run_on(devices[i], args); });
    for (std::thread& t : threads) t.join();
  }
  long done = 0;
  double elapsed = 0;
  for (const DeviceRun& r : runs) {
    done += r.units;
    elapsed = std::max(elapsed, r.elapsed_s);
  }
  // Per unit and per second are per device: the same figures a one-GPU run gives.
  const double per_device_units = static_cast<double>(done) / static_cast<double>(runs.size());
  const auto info = *slicelab::find_kernel(args.kernel);
  // At --scale F (fma) a unit is one kernel of F x the catalog's work: its flops scale with it.
  const double scaled =
      args.kernel == "fma" ? static_cast<double>(fma_iters(args.scale)) / kFmaIters : 1.0;
  std::printf(
      "{\"kernel\": \"%s\", \"device\": \"%s\", \"devices\": %zu, \"work_unit\": \"%.*s\", "
      "\"scale\": %.9g, \"units\": %ld, \"elapsed_s\": %.9g, \"per_unit_ns\": %.9g, "
      "\"units_per_s\": %.9g, \"bytes_per_unit\": %.9g, \"flops_per_unit\": %.9g, "
      "\"held_mib\": %ld}\n",
      args.kernel.c_str(), prop.name, runs.size(), static_cast<int>(info.work_unit.size()),
      info.work_unit.data(), scaled, done, elapsed,
      per_device_units > 0 ? elapsed * 1e9 / per_device_units : 0.0,
      elapsed > 0 ? per_device_units / elapsed : 0.0, info.bytes_per_unit,
      info.flops_per_unit * scaled, args.hold_mib);
  return 0;
}
