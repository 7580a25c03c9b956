// slicelab-standin: a CPU stand-in for slicelab-kernel in GPU-free tests. Same arguments, same
// JSON and exit codes; its "GPU work" goes through libcuda (the fake driver in tests), so a
// preloaded interposer caps and counts it. Test hooks, by pod name (SLICELAB_POD) or "all":
// SLICELAB_STANDIN_HANG (ignore SIGTERM, never end), SLICELAB_STANDIN_CRASH (abort at start).
#include <cuda.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "kernels/kernel_catalog.h"

namespace {

using Clock = std::chrono::steady_clock;

bool hook_applies(const char* var) {
  const char* v = std::getenv(var);
  const char* pod = std::getenv("SLICELAB_POD");
  if (!v || !*v) return false;
  return std::strcmp(v, "all") == 0 || (pod && std::strcmp(v, pod) == 0);
}

[[noreturn]] void fail(int code, const char* what, const char* detail) {
  std::printf("{\"error\": \"%s\", \"detail\": \"%s\"}\n", what, detail);
  std::fflush(stdout);
  std::exit(code);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !slicelab::find_kernel(argv[1]))
    fail(slicelab::kKernelExitUsage, "usage", "slicelab-standin <kernel> [options]");
  const std::string kernel = argv[1];
  long reps = 0, hold_mib = 0;
  double duration_s = 0, scale = 1;
  int device = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string opt = argv[i];
    if (opt == "--reps")
      reps = std::atol(argv[i + 1]);
    else if (opt == "--duration")
      duration_s = std::atof(argv[i + 1]);
    else if (opt == "--device") {
      // "all" (a multi-GPU pod): the stand-in's fake devices are all one; it runs on the first.
      std::fprintf(stderr, "device %s\n", argv[i + 1]);
      device = std::strcmp(argv[i + 1], "all") == 0 ? 0 : std::atoi(argv[i + 1]);
    } else if (opt == "--hold-mib")
      hold_mib = std::atol(argv[i + 1]);
    else if (opt == "--scale")
      scale = std::atof(argv[i + 1]);
    else
      fail(slicelab::kKernelExitUsage, "unknown option", argv[i]);
  }
  // As slicelab-kernel's: fma only; a unit of `scale` times the work, and below 1 a sync every
  // ceil(1/scale) units.
  if (!(scale >= 1.0 / 4096 && scale <= 1e5))
    fail(slicelab::kKernelExitUsage, "bad --scale", "expected a factor in 1/4096..100000");
  if (scale != 1 && kernel != "fma")
    fail(slicelab::kKernelExitUsage, "bad --scale", "--scale applies to fma only");
  const long sync_every = scale >= 1 ? 1 : static_cast<long>(std::ceil(1 / scale - 1e-9));
  if (reps <= 0 && duration_s <= 0) reps = 100;
  // What the backend gave this process, for the tests to read from the pod's log.
  for (const char* name :
       {"SLICELAB_POD", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "LD_PRELOAD",
        "SLICELAB_MEMORY_LIMIT", "SLICELAB_SM_LIMIT", "SLICELAB_SHARED_REGION",
        "CUDA_MPS_PIPE_DIRECTORY", "CUDA_MPS_LOG_DIRECTORY", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
        "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"}) {
    const char* v = std::getenv(name);
    std::fprintf(stderr, "env %s=%s\n", name, v ? v : "(unset)");
  }
  std::fprintf(stderr, "pid %d\n", static_cast<int>(getpid()));
  std::fflush(stderr);
  if (hook_applies("SLICELAB_STANDIN_CRASH")) std::abort();
  if (hook_applies("SLICELAB_STANDIN_HANG")) {
    signal(SIGTERM, SIG_IGN);
    for (;;) pause();
  }
  const char* vis = std::getenv("CUDA_VISIBLE_DEVICES");
  if (vis && *vis == '\0')
    fail(slicelab::kKernelExitNoGpu, "no GPU", "CUDA_VISIBLE_DEVICES is empty");
  CUcontext ctx = nullptr;
  if (cuInit(0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&ctx, device) != CUDA_SUCCESS ||
      cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
    fail(slicelab::kKernelExitNoGpu, "no GPU", "cuInit or context creation failed");
  CUdeviceptr held = 0;
  if (hold_mib > 0) {
    const CUresult r = cuMemAlloc(&held, static_cast<size_t>(hold_mib) << 20);
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
      fail(slicelab::kKernelExitOutOfMemory, "out of memory", "hold allocation");
    if (r != CUDA_SUCCESS)
      fail(slicelab::kKernelExitCudaError, "cuMemAlloc failed", "hold allocation");
  }
  // One unit: a fake kernel of SLICELAB_STANDIN_UNIT_NS (default 1 ms) times the scale, then a
  // sync.
  const char* u = std::getenv("SLICELAB_STANDIN_UNIT_NS");
  uint64_t unit_ns = static_cast<uint64_t>(
      static_cast<double>(u ? std::strtoull(u, nullptr, 10) : 1'000'000) * scale);
  void* params[] = {&unit_ns};
  CUmodule m = nullptr;
  CUfunction f = nullptr;
  cuModuleLoadData(&m, "standin");
  cuModuleGetFunction(&f, m, "unit");
  const auto t0 = Clock::now();
  const auto stop = t0 + std::chrono::duration<double>(duration_s);
  long done = 0;
  while (reps > 0 ? done < reps : Clock::now() < stop) {
    if (cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr) != CUDA_SUCCESS)
      fail(slicelab::kKernelExitCudaError, "cuLaunchKernel failed", kernel.c_str());
    ++done;
    if (done % sync_every == 0 || (reps > 0 && done == reps)) cuCtxSynchronize();
  }
  cuCtxSynchronize();
  const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf(
      "{\"kernel\": \"%s\", \"device\": \"standin\", \"scale\": %.9g, \"units\": %ld, "
      "\"elapsed_s\": %.9g, \"per_unit_ns\": %.9g, \"units_per_s\": %.9g, \"held_mib\": %ld}\n",
      kernel.c_str(), scale, done, elapsed, done ? elapsed * 1e9 / static_cast<double>(done) : 0.0,
      elapsed > 0 ? static_cast<double>(done) / elapsed : 0.0, hold_mib);
  if (held) cuMemFree(held);
  return 0;
}
