// The list of driver functions the interposer hooks, shared by the hooks and by the dlsym hook
// (which lives in its own, uninstrumented file).
#pragma once

#include "backends/interposer/driver_extra_decls.h"

// Every hooked driver function; each is exported under exactly this name.
// clang-format off  (one entry per line; clang-format mangles X-macro lists)
#define SLICELAB_REAL_FUNCTIONS(X)  \
  X(cuGetProcAddress)               \
  X(cuGetProcAddress_v2)            \
  X(cuMemGetInfo_v2)                \
  X(cuDeviceTotalMem_v2)            \
  X(cuMemAlloc_v2)                  \
  X(cuMemAllocPitch_v2)             \
  X(cuMemAllocManaged)              \
  X(cuMemAllocAsync)                \
  X(cuMemAllocAsync_ptsz)           \
  X(cuMemAllocFromPoolAsync)        \
  X(cuMemAllocFromPoolAsync_ptsz)   \
  X(cuMemFree_v2)                   \
  X(cuMemFreeAsync)                 \
  X(cuMemFreeAsync_ptsz)            \
  X(cuMemCreate)                    \
  X(cuMemRelease)                   \
  X(cuMemImportFromShareableHandle) \
  X(cuIpcOpenMemHandle_v2)          \
  X(cuIpcCloseMemHandle)            \
  X(cuMemMap)                       \
  X(cuArrayCreate_v2)               \
  X(cuArray3DCreate_v2)             \
  X(cuArrayDestroy)                 \
  X(cuMipmappedArrayCreate)         \
  X(cuMipmappedArrayDestroy)        \
  X(cuLaunchKernel)                 \
  X(cuLaunchKernel_ptsz)            \
  X(cuLaunchKernelEx)               \
  X(cuLaunchKernelEx_ptsz)          \
  X(cuLaunchCooperativeKernel)      \
  X(cuLaunchCooperativeKernel_ptsz) \
  X(cuGraphLaunch)                  \
  X(cuGraphLaunch_ptsz)
// clang-format on
