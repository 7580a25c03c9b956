// Driver entry points that cuda.h leaves undeclared (per-thread-stream variants, unversioned
// names), for code that defines or calls them by those exact names: hooks, fake driver, tests.
#pragma once

#include <cuda.h>

// cuda.h maps this name to its newest version; drivers and the interposer export every version.
#undef cuGetProcAddress
extern "C" {
CUresult cuGetProcAddress(const char*, void**, int, cuuint64_t);
CUresult cuLaunchKernel_ptsz(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**);
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig*, CUfunction, void**, void**);
CUresult cuLaunchCooperativeKernel_ptsz(CUfunction, unsigned, unsigned, unsigned, unsigned,
                                        unsigned, unsigned, unsigned, CUstream, void**);
CUresult cuGraphLaunch_ptsz(CUgraphExec, CUstream);
CUresult cuMemAllocAsync_ptsz(CUdeviceptr*, size_t, CUstream);
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr*, size_t, CUmemoryPool, CUstream);
CUresult cuMemFreeAsync_ptsz(CUdeviceptr, CUstream);
CUresult cuEventRecord_ptsz(CUevent, CUstream);
CUresult cuStreamSynchronize_ptsz(CUstream);
}
