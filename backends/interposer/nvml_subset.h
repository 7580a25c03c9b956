// The few NVML declarations the interposer hooks and the fake NVML implements, written from
// NVIDIA's public NVML API reference (nvml.h is not installed on these machines).
#pragma once

extern "C" {

typedef int nvmlReturn_t;  // an enum in nvml.h; same size and values
enum : int {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
  NVML_ERROR_UNKNOWN = 999,
};

typedef struct nvmlDevice_st* nvmlDevice_t;

typedef struct nvmlMemory_st {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

typedef struct nvmlMemory_v2_st {
  unsigned int version;
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_v2_t;

// NVML_STRUCT_VERSION(Memory, 2): the struct size with the version in the top byte.
#define SLICELAB_NVML_MEMORY_V2 (static_cast<unsigned int>(sizeof(nvmlMemory_v2_t)) | (2u << 24))

typedef struct nvmlProcessInfo_st {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlProcessInfo_t;

nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlShutdown(void);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device);
nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int* index);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory);
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t* memory);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int* count,
                                                     nvmlProcessInfo_t* infos);
}
