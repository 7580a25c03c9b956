// The few NVML declarations the interposer hooks, the device plugin's health monitor loads and
// the fake NVML implements, written from NVIDIA's published nvml.h (not installed here).
#pragma once

#include <cstddef>

extern "C" {

typedef int nvmlReturn_t;  // an enum in nvml.h; same size and values
enum : int {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_TIMEOUT = 10,
  NVML_ERROR_GPU_IS_LOST = 15,
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

// Events (nvml.h's "Event Handling Methods"): a set that devices register event types with,
// then waited on. The struct is passed by value, as in nvml.h.
typedef struct {
  struct nvmlEventSet_st* handle;
} nvmlEventSet_t;

// What nvmlEventSetWait_v2 fills; the layout is nvml.h's (v1's nvmlEventSetWait fills only the
// first three fields).
typedef struct nvmlEventData_st {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;  // the XID of an nvmlEventTypeXidCriticalError (999: unknown)
  unsigned int gpuInstanceId;    // the MIG GPU instance it is attributable to, else kNvmlNoInstance
  unsigned int computeInstanceId;  // likewise for the compute instance
} nvmlEventData_t;

nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlShutdown(void);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device);
nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int* index);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory);
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t* memory);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int* count,
                                                     nvmlProcessInfo_t* infos);
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char* uuid, nvmlDevice_t* device);
nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int* id);
nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int* id);
nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t mig, nvmlDevice_t* device);
nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set);
nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes,
                                      nvmlEventSet_t set);
nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long* eventTypes);
nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t* data, unsigned int timeoutms);
nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set);
}

// nvml.h's event type bits (#defines there) and the "no instance" id of nvmlEventData_t.
inline constexpr unsigned long long kNvmlEventTypeSingleBitEccError = 0x1ULL;
inline constexpr unsigned long long kNvmlEventTypeDoubleBitEccError = 0x2ULL;
inline constexpr unsigned long long kNvmlEventTypeXidCriticalError = 0x8ULL;
inline constexpr unsigned int kNvmlNoInstance = 0xFFFFFFFFu;

static_assert(sizeof(nvmlEventSet_t) == sizeof(void*));
static_assert(sizeof(nvmlEventData_t) == 32 && offsetof(nvmlEventData_t, eventType) == 8 &&
                  offsetof(nvmlEventData_t, eventData) == 16 &&
                  offsetof(nvmlEventData_t, gpuInstanceId) == 24 &&
                  offsetof(nvmlEventData_t, computeInstanceId) == 28,
              "nvmlEventData_t must keep nvml.h's layout");
