// The program the interposer tests start in a separate process, with the fake driver on
// LD_LIBRARY_PATH and the interposer in LD_PRELOAD: each mode exercises one acceptance point and
// prints what it saw; CHECK failures print the expression and exit 1.
#include <cuda.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "backends/interposer/driver_extra_decls.h"
#include "backends/interposer/nvml_subset.h"
#include "tests/fakes/fake_control.h"

#define CHECK(cond)                                                           \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::fprintf(stdout, "CHECK failed at line %d: %s\n", __LINE__, #cond); \
      std::fflush(stdout);                                                    \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)
#define CHECK_EQ(a, b)                                                                            \
  do {                                                                                            \
    const auto check_a_ = (a);                                                                    \
    const auto check_b_ = (b);                                                                    \
    if (!(check_a_ == check_b_)) {                                                                \
      std::fprintf(stdout, "CHECK_EQ failed at line %d: %s == %s (%" PRIu64 " vs %" PRIu64 ")\n", \
                   __LINE__, #a, #b, static_cast<uint64_t>(check_a_),                             \
                   static_cast<uint64_t>(check_b_));                                              \
      std::fflush(stdout);                                                                        \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

namespace {

uint64_t env_u64(const char* n) {
  const char* v = std::getenv(n);
  return v ? std::strtoull(v, nullptr, 10) : 0;
}

void use_device(int d) {
  CHECK_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext ctx;
  CHECK_EQ(cuDevicePrimaryCtxRetain(&ctx, d), CUDA_SUCCESS);
  CHECK_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
}

uint64_t used_by_interposer() {
  size_t free_b = 0, total = 0;
  CHECK_EQ(cuMemGetInfo(&free_b, &total), CUDA_SUCCESS);
  return total - free_b;
}

// One allocation path: allocate `bytes` (returns the token to free), and free it.
struct Path {
  const char* name;
  std::function<CUresult(uint64_t, uint64_t*)> alloc;
  std::function<CUresult(uint64_t)> free;
};

std::vector<Path> paths() {
  std::vector<Path> p;
  auto ptr_free = [](uint64_t t) { return cuMemFree(static_cast<CUdeviceptr>(t)); };
  p.push_back(
      {"cuMemAlloc_v2",
       [](uint64_t b, uint64_t* t) { return cuMemAlloc(reinterpret_cast<CUdeviceptr*>(t), b); },
       ptr_free});
  p.push_back({"cuMemAllocPitch_v2",
               [](uint64_t b, uint64_t* t) {
                 size_t pitch = 0;  // widths are multiples of 512: the pitch equals the width
                 return cuMemAllocPitch(reinterpret_cast<CUdeviceptr*>(t), &pitch, b / 512 * 512, 1,
                                        4);
               },
               ptr_free});
  p.push_back({"cuMemAllocManaged",
               [](uint64_t b, uint64_t* t) {
                 return cuMemAllocManaged(reinterpret_cast<CUdeviceptr*>(t), b,
                                          CU_MEM_ATTACH_GLOBAL);
               },
               ptr_free});
  p.push_back({"cuMemAllocAsync",
               [](uint64_t b, uint64_t* t) {
                 return cuMemAllocAsync(reinterpret_cast<CUdeviceptr*>(t), b, nullptr);
               },
               [](uint64_t t) { return cuMemFreeAsync(static_cast<CUdeviceptr>(t), nullptr); }});
  p.push_back(
      {"cuMemAllocAsync_ptsz",
       [](uint64_t b, uint64_t* t) {
         return cuMemAllocAsync_ptsz(reinterpret_cast<CUdeviceptr*>(t), b, nullptr);
       },
       [](uint64_t t) { return cuMemFreeAsync_ptsz(static_cast<CUdeviceptr>(t), nullptr); }});
  p.push_back({"cuMemAllocFromPoolAsync",
               [](uint64_t b, uint64_t* t) {
                 return cuMemAllocFromPoolAsync(reinterpret_cast<CUdeviceptr*>(t), b, nullptr,
                                                nullptr);
               },
               [](uint64_t t) { return cuMemFreeAsync(static_cast<CUdeviceptr>(t), nullptr); }});
  p.push_back({"cuMemAllocFromPoolAsync_ptsz",
               [](uint64_t b, uint64_t* t) {
                 return cuMemAllocFromPoolAsync_ptsz(reinterpret_cast<CUdeviceptr*>(t), b, nullptr,
                                                     nullptr);
               },
               ptr_free});
  p.push_back({"cuMemCreate",
               [](uint64_t b, uint64_t* t) {
                 CUmemAllocationProp prop{};
                 prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
                 prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
                 prop.location.id = 0;
                 CUmemGenericAllocationHandle h = 0;
                 const CUresult r = cuMemCreate(&h, b, &prop, 0);
                 if (r != CUDA_SUCCESS) return r;
                 // Mapping physical memory adds nothing to the tally.
                 CUdeviceptr va = 0;
                 cuMemAddressReserve(&va, b, 0, 0, 0);
                 CHECK_EQ(cuMemMap(va, b, 0, h, 0), CUDA_SUCCESS);
                 cuMemUnmap(va, b);
                 cuMemAddressFree(va, b);
                 *t = h;
                 return r;
               },
               [](uint64_t t) { return cuMemRelease(t); }});
  p.push_back({"cuMemImportFromShareableHandle+cuMemMap",
               [](uint64_t b, uint64_t* t) {
                 CUmemGenericAllocationHandle h = 0;
                 // The fake's shareable handle is the size of the exported allocation.
                 CHECK_EQ(cuMemImportFromShareableHandle(&h, reinterpret_cast<void*>(b),
                                                         CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
                          CUDA_SUCCESS);
                 CUdeviceptr va = 0;
                 cuMemAddressReserve(&va, b, 0, 0, 0);
                 const CUresult r = cuMemMap(va, b, 0, h, 0);
                 cuMemAddressFree(va, b);
                 if (r != CUDA_SUCCESS)
                   cuMemRelease(h);
                 else
                   *t = h;
                 return r;
               },
               [](uint64_t t) { return cuMemRelease(t); }});
  p.push_back({"cuIpcOpenMemHandle_v2",
               [](uint64_t b, uint64_t* t) {
                 // The fake's IPC handle carries the size; the exporter's memory is not ours.
                 CUipcMemHandle h{};
                 std::memcpy(h.reserved, &b, sizeof b);
                 return cuIpcOpenMemHandle(reinterpret_cast<CUdeviceptr*>(t), h,
                                           CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
               },
               [](uint64_t t) { return cuIpcCloseMemHandle(static_cast<CUdeviceptr>(t)); }});
  p.push_back({"cuArrayCreate_v2",
               [](uint64_t b, uint64_t* t) {
                 CUDA_ARRAY_DESCRIPTOR d{};
                 d.Width = b / 4;
                 d.Height = 1;
                 d.Format = CU_AD_FORMAT_FLOAT;
                 d.NumChannels = 1;
                 return cuArrayCreate(reinterpret_cast<CUarray*>(t), &d);
               },
               [](uint64_t t) { return cuArrayDestroy(reinterpret_cast<CUarray>(t)); }});
  p.push_back({"cuArray3DCreate_v2",
               [](uint64_t b, uint64_t* t) {
                 CUDA_ARRAY3D_DESCRIPTOR d{};
                 d.Width = b / 8;
                 d.Height = 2;
                 d.Depth = 1;
                 d.Format = CU_AD_FORMAT_UNSIGNED_INT16;
                 d.NumChannels = 2;
                 return cuArray3DCreate(reinterpret_cast<CUarray*>(t), &d);
               },
               [](uint64_t t) { return cuArrayDestroy(reinterpret_cast<CUarray>(t)); }});
  p.push_back(
      {"cuMipmappedArrayCreate",
       [](uint64_t b, uint64_t* t) {
         CUDA_ARRAY3D_DESCRIPTOR d{};
         d.Width = b;
         d.Format = CU_AD_FORMAT_UNSIGNED_INT8;
         d.NumChannels = 1;
         return cuMipmappedArrayCreate(reinterpret_cast<CUmipmappedArray*>(t), &d, 1);
       },
       [](uint64_t t) { return cuMipmappedArrayDestroy(reinterpret_cast<CUmipmappedArray>(t)); }});
  return p;
}

// Every path: the cap holds to the byte, over it the answer is CUDA_ERROR_OUT_OF_MEMORY, and
// the free is credited (the interposer's tally and the fake's real usage are both back to 0).
int mode_paths() {
  use_device(0);
  const uint64_t cap = env_u64("SLICELAB_MEMORY_LIMIT");
  CHECK(cap > 0 && cap % 4096 == 0);
  for (const Path& p : paths()) {
    std::printf("path %s\n", p.name);
    uint64_t a = 0, b = 0, c = 0;
    CHECK_EQ(p.alloc(cap / 2, &a), CUDA_SUCCESS);
    CHECK_EQ(used_by_interposer(), cap / 2);
    CHECK_EQ(p.alloc(cap / 2 + 4096, &b), CUDA_ERROR_OUT_OF_MEMORY);  // one page over
    CHECK_EQ(p.alloc(cap / 2, &c), CUDA_SUCCESS);                     // exactly the cap
    CHECK_EQ(used_by_interposer(), cap);
    CHECK_EQ(p.alloc(4096, &b), CUDA_ERROR_OUT_OF_MEMORY);
    // Other paths see the same cap.
    CUdeviceptr x = 0;
    CHECK_EQ(cuMemAlloc(&x, 1), CUDA_ERROR_OUT_OF_MEMORY);
    CHECK_EQ(p.free(a), CUDA_SUCCESS);
    CHECK_EQ(used_by_interposer(), cap / 2);
    CHECK_EQ(p.free(c), CUDA_SUCCESS);
    CHECK_EQ(used_by_interposer(), uint64_t{0});
    CHECK_EQ(slicelab_fake_used_bytes(0), uint64_t{0});
    // The device really has far more than the cap: the OOM came from the interposer.
    CHECK(p.alloc(cap * 2, &b) == CUDA_ERROR_OUT_OF_MEMORY);
  }
  std::printf("paths ok\n");
  return 0;
}

// Holds `bytes` on device 0 until killed; prints "held" (or "allocating" just before the call,
// for kills in the middle of an allocation). With launches > 0, launches that many kernels first.
int mode_hold(uint64_t bytes, int launches) {
  use_device(0);
  CUmodule m;
  CUfunction f;
  cuModuleLoadData(&m, "");
  cuModuleGetFunction(&f, m, "k");
  for (int i = 0; i < launches; ++i)
    CHECK_EQ(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_SUCCESS);
  std::printf("allocating\n");
  std::fflush(stdout);
  CUdeviceptr p = 0;
  const CUresult r = cuMemAlloc(&p, bytes);
  std::printf("held result=%d\n", static_cast<int>(r));
  std::fflush(stdout);
  for (;;) pause();
}

// Tries one allocation and says what came back, and what cuMemGetInfo says is in use.
int mode_try(uint64_t bytes) {
  use_device(0);
  CUdeviceptr p = 0;
  const CUresult r = cuMemAlloc(&p, bytes);
  std::printf("result=%d used=%" PRIu64 "\n", static_cast<int>(r), used_by_interposer());
  return 0;
}

// Tries one allocation on device `dev` through cuMemAlloc and cuMemCreate, and says what came
// back from each (devices beyond the interposer's table included: SLICELAB_FAKE_DEVICES).
int mode_try_device(int dev, uint64_t bytes) {
  use_device(dev);
  CUdeviceptr p = 0;
  const CUresult r = cuMemAlloc(&p, bytes);
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  CUmemGenericAllocationHandle h = 0;
  const CUresult c = cuMemCreate(&h, bytes, &prop, 0);
  size_t free_b = 0, total = 0;
  CHECK_EQ(cuMemGetInfo(&free_b, &total), CUDA_SUCCESS);
  std::printf("device=%d result=%d create=%d free=%zu\n", dev, static_cast<int>(r),
              static_cast<int>(c), free_b);
  return 0;
}

// Takes `bypass` bytes straight from the fake driver (behind the interposer's back, as a
// statically linked or unhooked path would), then tries `bytes` through the interposer.
int mode_bypass(uint64_t bypass, uint64_t bytes) {
  use_device(0);
  using AllocFn = CUresult (*)(CUdeviceptr*, size_t);
  auto direct = reinterpret_cast<AllocFn>(slicelab_fake_proc("cuMemAlloc", 13000, 0));
  CUdeviceptr p = 0, q = 0;
  CHECK_EQ(direct(&p, bypass), CUDA_SUCCESS);
  const CUresult r = cuMemAlloc(&q, bytes);
  std::printf("result=%d used=%" PRIu64 "\n", static_cast<int>(r), used_by_interposer());
  return 0;
}

// Every hooked name resolves to the hook, whichever way a program looks it up.
int mode_lookup() {
  use_device(0);
  struct Named {
    const char* base;
    const char* versioned;
    void* hook_legacy;
    void* hook_ptsz;
    int since;
  };
#define H(fn) reinterpret_cast<void*>(&fn)
  const Named names[] = {
      {"cuMemAlloc", "cuMemAlloc_v2", H(cuMemAlloc_v2), nullptr, 3020},
      {"cuMemAllocPitch", "cuMemAllocPitch_v2", H(cuMemAllocPitch_v2), nullptr, 3020},
      {"cuMemAllocManaged", "cuMemAllocManaged", H(cuMemAllocManaged), nullptr, 6000},
      {"cuMemAllocAsync", "cuMemAllocAsync", H(cuMemAllocAsync), H(cuMemAllocAsync_ptsz), 11020},
      {"cuMemAllocFromPoolAsync", "cuMemAllocFromPoolAsync", H(cuMemAllocFromPoolAsync),
       H(cuMemAllocFromPoolAsync_ptsz), 11020},
      {"cuMemFree", "cuMemFree_v2", H(cuMemFree_v2), nullptr, 3020},
      {"cuMemFreeAsync", "cuMemFreeAsync", H(cuMemFreeAsync), H(cuMemFreeAsync_ptsz), 11020},
      {"cuMemCreate", "cuMemCreate", H(cuMemCreate), nullptr, 10020},
      {"cuMemRelease", "cuMemRelease", H(cuMemRelease), nullptr, 10020},
      {"cuMemMap", "cuMemMap", H(cuMemMap), nullptr, 10020},
      {"cuMemImportFromShareableHandle", "cuMemImportFromShareableHandle",
       H(cuMemImportFromShareableHandle), nullptr, 10020},
      {"cuIpcOpenMemHandle", "cuIpcOpenMemHandle_v2", H(cuIpcOpenMemHandle_v2), nullptr, 11000},
      {"cuIpcCloseMemHandle", "cuIpcCloseMemHandle", H(cuIpcCloseMemHandle), nullptr, 4010},
      {"cuArrayCreate", "cuArrayCreate_v2", H(cuArrayCreate_v2), nullptr, 3020},
      {"cuArray3DCreate", "cuArray3DCreate_v2", H(cuArray3DCreate_v2), nullptr, 3020},
      {"cuArrayDestroy", "cuArrayDestroy", H(cuArrayDestroy), nullptr, 2000},
      {"cuMipmappedArrayCreate", "cuMipmappedArrayCreate", H(cuMipmappedArrayCreate), nullptr,
       5000},
      {"cuMipmappedArrayDestroy", "cuMipmappedArrayDestroy", H(cuMipmappedArrayDestroy), nullptr,
       5000},
      {"cuMemGetInfo", "cuMemGetInfo_v2", H(cuMemGetInfo_v2), nullptr, 3020},
      {"cuDeviceTotalMem", "cuDeviceTotalMem_v2", H(cuDeviceTotalMem_v2), nullptr, 3020},
      {"cuLaunchKernel", "cuLaunchKernel", H(cuLaunchKernel), H(cuLaunchKernel_ptsz), 4000},
      {"cuLaunchKernelEx", "cuLaunchKernelEx", H(cuLaunchKernelEx), H(cuLaunchKernelEx_ptsz),
       11060},
      {"cuLaunchCooperativeKernel", "cuLaunchCooperativeKernel", H(cuLaunchCooperativeKernel),
       H(cuLaunchCooperativeKernel_ptsz), 9000},
      {"cuGraphLaunch", "cuGraphLaunch", H(cuGraphLaunch), H(cuGraphLaunch_ptsz), 10000},
  };
#undef H
  void* libcuda = dlopen("libcuda.so.1", RTLD_NOW);
  CHECK(libcuda != nullptr);
  // The hook must not be the fake's own function (the test would prove nothing).
  void* fake_alloc = slicelab_fake_proc("cuMemAlloc", 13000, 0);
  CHECK(fake_alloc != nullptr && fake_alloc != reinterpret_cast<void*>(&cuMemAlloc_v2));
  int checked = 0;
  for (const Named& n : names) {
    CHECK(dlsym(libcuda, n.versioned) == n.hook_legacy);
    CHECK(dlsym(RTLD_DEFAULT, n.versioned) == n.hook_legacy);
    for (int version : {11030, 11040, 11060, 11070, 11080, 12000, 12020, 12050, 12080, 13000}) {
      for (cuuint64_t flags :
           {cuuint64_t{CU_GET_PROC_ADDRESS_DEFAULT}, cuuint64_t{CU_GET_PROC_ADDRESS_LEGACY_STREAM},
            cuuint64_t{CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM}}) {
        void* expect = flags == CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM && n.hook_ptsz
                           ? n.hook_ptsz
                           : n.hook_legacy;
        void* got = nullptr;
        CUdriverProcAddressQueryResult status{};
        const CUresult r = cuGetProcAddress_v2(n.base, &got, version, flags, &status);
        void* got1 = nullptr;
        const CUresult r1 = cuGetProcAddress(n.base, &got1, version, flags);
        if (version < n.since) {
          CHECK(r != CUDA_SUCCESS && status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
          CHECK(r1 != CUDA_SUCCESS);
          continue;
        }
        if (got != expect || got1 != expect)
          std::printf("lookup %s version %d flags %d: got %p/%p want %p\n", n.base, version,
                      static_cast<int>(flags), got, got1, expect);
        CHECK(got == expect && got1 == expect);
        ++checked;
      }
    }
  }
  // cuGetProcAddress itself: the 4-argument version before CUDA 12, _v2 from 12.0.
  void* gpa = nullptr;
  CHECK_EQ(cuGetProcAddress_v2("cuGetProcAddress", &gpa, 12000, 0, nullptr), CUDA_SUCCESS);
  CHECK(gpa == reinterpret_cast<void*>(&cuGetProcAddress_v2));
  CHECK_EQ(cuGetProcAddress_v2("cuGetProcAddress", &gpa, 11080, 0, nullptr), CUDA_SUCCESS);
  CHECK(gpa == reinterpret_cast<void*>(&cuGetProcAddress));
  CHECK(dlsym(libcuda, "cuGetProcAddress_v2") == reinterpret_cast<void*>(&cuGetProcAddress_v2));
  // Unhooked names pass through untouched.
  void* sync = nullptr;
  CHECK_EQ(cuGetProcAddress_v2("cuStreamSynchronize", &sync, 13000, 0, nullptr), CUDA_SUCCESS);
  CHECK(sync == dlsym(libcuda, "cuStreamSynchronize"));
  // A pointer found by cuGetProcAddress is really capped.
  using AllocFn = CUresult (*)(CUdeviceptr*, size_t);
  void* fn = nullptr;
  CHECK_EQ(cuGetProcAddress_v2("cuMemAlloc", &fn, 13000, 0, nullptr), CUDA_SUCCESS);
  CUdeviceptr p = 0;
  CHECK_EQ(reinterpret_cast<AllocFn>(fn)(&p, env_u64("SLICELAB_MEMORY_LIMIT") + 1),
           CUDA_ERROR_OUT_OF_MEMORY);
  CHECK_EQ(reinterpret_cast<AllocFn>(fake_alloc)(&p, env_u64("SLICELAB_MEMORY_LIMIT") + 1),
           CUDA_SUCCESS);  // the fake itself has room: the cap is the interposer's doing
  // NVML names through dlsym.
  void* nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  CHECK(nvml != nullptr);
  CHECK(dlsym(nvml, "nvmlDeviceGetMemoryInfo") ==
        reinterpret_cast<void*>(&nvmlDeviceGetMemoryInfo));
  CHECK(dlsym(nvml, "nvmlDeviceGetMemoryInfo_v2") ==
        reinterpret_cast<void*>(&nvmlDeviceGetMemoryInfo_v2));
  std::printf("lookup ok: %d versioned lookups\n", checked);
  return 0;
}

// cuMemGetInfo, cuDeviceTotalMem and NVML report the cap and the container's usage.
int mode_meminfo() {
  use_device(0);
  const uint64_t cap = env_u64("SLICELAB_MEMORY_LIMIT");
  const uint64_t cap1 = env_u64("SLICELAB_TEST_CAP_1");  // what the test configured for device 1
  CUdeviceptr p = 0;
  CHECK_EQ(cuMemAlloc(&p, 3 << 20), CUDA_SUCCESS);
  size_t free_b = 0, total = 0;
  CHECK_EQ(cuMemGetInfo(&free_b, &total), CUDA_SUCCESS);
  CHECK_EQ(total, cap);
  CHECK_EQ(free_b, cap - (3 << 20));
  size_t t0 = 0, t1 = 0;
  CHECK_EQ(cuDeviceTotalMem(&t0, 0), CUDA_SUCCESS);
  CHECK_EQ(cuDeviceTotalMem(&t1, 1), CUDA_SUCCESS);
  CHECK_EQ(t0, cap);
  CHECK_EQ(t1, cap1);  // per-device caps for multi-GPU pods
  CHECK_EQ(nvmlInit_v2(), NVML_SUCCESS);
  nvmlDevice_t d0, d1;
  CHECK_EQ(nvmlDeviceGetHandleByIndex_v2(0, &d0), NVML_SUCCESS);
  CHECK_EQ(nvmlDeviceGetHandleByIndex_v2(1, &d1), NVML_SUCCESS);
  nvmlMemory_t m{};
  CHECK_EQ(nvmlDeviceGetMemoryInfo(d0, &m), NVML_SUCCESS);
  CHECK_EQ(m.total, cap);
  CHECK_EQ(m.used, uint64_t{3} << 20);
  CHECK_EQ(m.free, cap - (3 << 20));
  nvmlMemory_v2_t m2{};
  m2.version = SLICELAB_NVML_MEMORY_V2;
  CHECK_EQ(nvmlDeviceGetMemoryInfo_v2(d0, &m2), NVML_SUCCESS);
  CHECK_EQ(m2.total, cap);
  CHECK_EQ(m2.used, uint64_t{3} << 20);
  // Through dlsym, as nvidia-smi-like tools load NVML.
  void* nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  auto get = reinterpret_cast<nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*)>(
      dlsym(nvml, "nvmlDeviceGetMemoryInfo"));
  CHECK_EQ(get(d1, &m), NVML_SUCCESS);
  CHECK_EQ(m.total, cap1);
  CHECK_EQ(m.used, uint64_t{0});
  // Device 1's cap is its own: allocate up to it there.
  use_device(1);
  CUdeviceptr q = 0;
  CHECK_EQ(cuMemAlloc(&q, cap1), CUDA_SUCCESS);
  CHECK_EQ(cuMemAlloc(&p, 1), CUDA_ERROR_OUT_OF_MEMORY);
  CHECK_EQ(cuMemGetInfo(&free_b, &total), CUDA_SUCCESS);
  CHECK_EQ(free_b, uint64_t{0});
  CHECK_EQ(total, cap1);
  std::printf("meminfo ok\n");
  return 0;
}

// 16 threads allocating, freeing and launching at once (run under TSan by the TSan build):
// the cap is never exceeded, every byte is credited, every launch counted by the fake.
int mode_threads(int nthreads, int iters) {
  use_device(0);
  const uint64_t cap = env_u64("SLICELAB_MEMORY_LIMIT");
  const uint64_t chunk = cap / 8;  // 16 threads want 16 chunks: half of them must be refused
  std::atomic<int> ok{0}, oom{0}, bad{0};
  CUmodule m;
  CUfunction f;
  cuModuleLoadData(&m, "");
  cuModuleGetFunction(&f, m, "k");
  std::vector<std::thread> ts;
  for (int t = 0; t < nthreads; ++t)
    ts.emplace_back([&, t] {
      CUcontext ctx;
      cuDevicePrimaryCtxRetain(&ctx, 0);
      cuCtxSetCurrent(ctx);
      CUstream s;
      cuStreamCreate(&s, 0);
      uint64_t ns = 2000;
      void* params[] = {&ns};
      for (int i = 0; i < iters; ++i) {
        CUdeviceptr p = 0;
        const CUresult r = (i + t) % 2 ? cuMemAlloc(&p, chunk) : cuMemAllocAsync(&p, chunk, s);
        if (r == CUDA_SUCCESS) {
          ++ok;
          if (slicelab_fake_used_bytes(0) > cap) ++bad;
        } else if (r == CUDA_ERROR_OUT_OF_MEMORY) {
          ++oom;
        } else {
          ++bad;
        }
        const CUresult l = i % 3 == 0
                               ? cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, params, nullptr)
                               : cuLaunchKernel_ptsz(f, 2, 1, 1, 1, 1, 1, 0, s, params, nullptr);
        if (l != CUDA_SUCCESS) ++bad;
        if (r == CUDA_SUCCESS && cuMemFree(p) != CUDA_SUCCESS) ++bad;
      }
      cuStreamSynchronize(s);
      cuStreamDestroy(s);
    });
  for (auto& t : ts) t.join();
  std::printf("threads ok=%d oom=%d bad=%d\n", ok.load(), oom.load(), bad.load());
  CHECK_EQ(bad.load(), 0);
  CHECK(ok.load() > 0);
  CHECK_EQ(used_by_interposer(), uint64_t{0});
  CHECK_EQ(slicelab_fake_used_bytes(0), uint64_t{0});
  CHECK_EQ(slicelab_fake_busy_ns(0), int64_t{2000} * nthreads * iters);
  std::printf("threads done\n");
  return 0;
}

// One tenant capped at SLICELAB_SM_LIMIT on the fake device in virtual time: always has work,
// rotates through every launch path, and reports its share of device time after a warm-up.
int mode_share(int64_t kernel_ns) {
  use_device(0);
  CUmodule m;
  CUfunction f;
  cuModuleLoadData(&m, "");
  cuModuleGetFunction(&f, m, "k");
  CUstream s;
  cuStreamCreate(&s, 0);
  uint64_t ns = static_cast<uint64_t>(kernel_ns);
  void* params[] = {&ns};
  CUgraphExec g = static_cast<CUgraphExec>(slicelab_fake_graph_exec(kernel_ns));
  CUlaunchConfig cfg{};
  cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = cfg.blockDimY = cfg.blockDimZ = 1;
  cfg.hStream = s;
  const int64_t start = slicelab_fake_now_ns();
  const int64_t warm = start + 2'000'000'000, end = start + 22'000'000'000;
  int64_t busy_at_warm = -1;
  for (int64_t i = 0; slicelab_fake_now_ns() < end; ++i) {
    if (busy_at_warm < 0 && slicelab_fake_now_ns() >= warm) busy_at_warm = slicelab_fake_busy_ns(0);
    CUresult r = CUDA_SUCCESS;
    switch (i % 8) {
      case 0:
        r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, params, nullptr);
        break;
      case 1:
        r = cuLaunchKernel_ptsz(f, 1, 1, 1, 1, 1, 1, 0, s, params, nullptr);
        break;
      case 2:
        r = cuLaunchKernelEx(&cfg, f, params, nullptr);
        break;
      case 3:
        r = cuLaunchKernelEx_ptsz(&cfg, f, params, nullptr);
        break;
      case 4:
        r = cuLaunchCooperativeKernel(f, 1, 1, 1, 1, 1, 1, 0, s, params);
        break;
      case 5:
        r = cuLaunchCooperativeKernel_ptsz(f, 1, 1, 1, 1, 1, 1, 0, s, params);
        break;
      case 6:
        r = cuGraphLaunch(g, s);
        break;
      default:
        r = cuGraphLaunch_ptsz(g, s);
        break;
    }
    CHECK_EQ(r, CUDA_SUCCESS);
    slicelab_fake_sleep_ns(3000);  // the host's own cost of a launch
    if (i % 4 == 3) cuStreamSynchronize(s);
  }
  cuStreamSynchronize(s);
  const double share = static_cast<double>(slicelab_fake_busy_ns(0) - busy_at_warm) /
                       static_cast<double>(slicelab_fake_now_ns() - warm);
  std::printf("share=%.4f\n", share);
  return 0;
}

// Configuration errors must not stop the program: it allocates (or is refused: a cap that
// cannot be read fails closed) and launches, and says what it got.
int mode_survive() {
  use_device(0);
  CUdeviceptr p = 0;
  const CUresult alloc = cuMemAlloc(&p, 1 << 20);
  CUmodule m;
  CUfunction f;
  cuModuleLoadData(&m, "");
  cuModuleGetFunction(&f, m, "k");
  CHECK_EQ(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_SUCCESS);
  if (alloc == CUDA_SUCCESS) CHECK_EQ(cuMemFree(p), CUDA_SUCCESS);
  size_t free_b = 0, total = 0;
  CHECK_EQ(cuMemGetInfo(&free_b, &total), CUDA_SUCCESS);
  std::printf("survived alloc=%d total=%zu\n", static_cast<int>(alloc), total);
  return 0;
}

// The unsetenv escape: before its first CUDA call the program removes every interposer variable
// (SLICELAB_*, CUDA_DEVICE_*) and sets a huge cap of its own, then tries `bytes`.
int mode_unset_try(uint64_t bytes) {
  std::vector<std::string> names;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "SLICELAB_", 9) == 0 || std::strncmp(*e, "CUDA_DEVICE_", 12) == 0)
      names.emplace_back(*e, static_cast<size_t>(std::strchr(*e, '=') - *e));
  for (const std::string& n : names)
    if (n.rfind("SLICELAB_FAKE_", 0) != 0) unsetenv(n.c_str());
  setenv("SLICELAB_MEMORY_LIMIT", "100Gi", 1);
  std::printf("unset %zu variables\n", names.size());
  return mode_try(bytes);
}

// The env -i escape: runs this program again as `args` with an environment holding only the
// variables named in `keep` (comma-separated), and ends as it ends.
int mode_env_i(const std::string& keep, char** args) {
  std::vector<std::string> kv;
  size_t start = 0;
  while (start <= keep.size()) {
    size_t comma = keep.find(',', start);
    if (comma == std::string::npos) comma = keep.size();
    const std::string name = keep.substr(start, comma - start);
    if (const char* v = std::getenv(name.c_str()); v && !name.empty()) kv.push_back(name + "=" + v);
    start = comma + 1;
  }
  std::vector<char*> envp;
  for (std::string& e : kv) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> argv{const_cast<char*>("/proc/self/exe")};
  for (char** a = args; *a; ++a) argv.push_back(*a);
  argv.push_back(nullptr);
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    execve("/proc/self/exe", argv.data(), envp.data());
    _exit(127);
  }
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child);
  std::printf("child with %zu variables exited %d\n", kv.size(),
              WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// Holds `bytes` on device 0, says "held", and after SIGUSR1 (the test shrinks the region file
// meanwhile) allocates, frees, launches and asks for memory info: each touches the region.
int mode_hold_then_more(uint64_t bytes) {
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  CHECK(pthread_sigmask(SIG_BLOCK, &usr1, nullptr) == 0);
  use_device(0);
  CUmodule m;
  CUfunction f;
  cuModuleLoadData(&m, "");
  cuModuleGetFunction(&f, m, "k");
  CUdeviceptr p = 0;
  CHECK_EQ(cuMemAlloc(&p, bytes), CUDA_SUCCESS);
  std::printf("held\n");
  std::fflush(stdout);
  int sig = 0;
  CHECK(sigwait(&usr1, &sig) == 0);
  CUdeviceptr q = 0;
  const CUresult more = cuMemAlloc(&q, 4096);
  const CUresult freed = cuMemFree(p);
  const CUresult launched = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr);
  size_t free_b = 0, total = 0;
  CHECK_EQ(cuMemGetInfo(&free_b, &total), CUDA_SUCCESS);
  std::printf("after more=%d free=%d launch=%d free_bytes=%zu\n", static_cast<int>(more),
              static_cast<int>(freed), static_cast<int>(launched), free_b);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::string mode = argc > 1 ? argv[1] : "";
  auto arg = [&](int i) { return argc > i ? std::strtoll(argv[i], nullptr, 10) : 0LL; };
  if (mode == "paths") return mode_paths();
  if (mode == "hold") return mode_hold(static_cast<uint64_t>(arg(2)), static_cast<int>(arg(3)));
  if (mode == "try") return mode_try(static_cast<uint64_t>(arg(2)));
  if (mode == "try_device")
    return mode_try_device(static_cast<int>(arg(2)), static_cast<uint64_t>(arg(3)));
  if (mode == "bypass")
    return mode_bypass(static_cast<uint64_t>(arg(2)), static_cast<uint64_t>(arg(3)));
  if (mode == "lookup") return mode_lookup();
  if (mode == "meminfo") return mode_meminfo();
  if (mode == "threads") return mode_threads(static_cast<int>(arg(2)), static_cast<int>(arg(3)));
  if (mode == "share") return mode_share(arg(2));
  if (mode == "survive") return mode_survive();
  if (mode == "unset_try") return mode_unset_try(static_cast<uint64_t>(arg(2)));
  if (mode == "env_i" && argc > 3) return mode_env_i(argv[2], argv + 3);
  if (mode == "hold_then_more") return mode_hold_then_more(static_cast<uint64_t>(arg(2)));
  std::fprintf(stderr,
               "usage: %s paths|hold|try|try_device|lookup|meminfo|threads|share|survive|"
               "unset_try|env_i|hold_then_more ...\n",
               argv[0]);
  return 2;
}
