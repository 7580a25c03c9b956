// HAMi's per-GPU fit and its node and GPU scores as pure functions of what HAMi registers per
// GPU and what is in use there, written from HAMi's source (docs/hami.md cites each line).
#pragma once

#include <cstdint>

namespace slicelab {

// What HAMi's device plugin registers for one GPU (register.go, Register): Count = split
// count, Totalmem = physical MiB x deviceMemoryScaling (truncated), Totalcore = 100 x
// deviceCoreScaling.
struct HamiDevice {
  int count = 10;
  int64_t total_mem = 0;
  int total_core = 100;
};

// What its tenants hold of it (DeviceUsage.Used, Usedmem, Usedcores): requests, not actual use.
struct HamiUsage {
  int used = 0;
  int64_t used_mem = 0;
  int used_cores = 0;
};

// One container's request per GPU (GenerateResourceRequests): gpumem in MiB, else a percentage
// of the GPU's Totalmem (mem_percent 1..100; 0 = none), and gpucores (0..100).
struct HamiAsk {
  int64_t mem_mib = 0;
  int mem_percent = 0;
  int cores = 0;
};

// The memory the request takes of this GPU: gpumem, else Totalmem x percent / 100 (Fit), else,
// with neither given, all of Totalmem (defaultMemory 0 makes the percentage 100).
int64_t hami_memory_request(const HamiAsk& ask, const HamiDevice& dev);

// Why HAMi's Fit skips a GPU, in its order; kFits when it takes the request.
enum class HamiMisfit {
  kFits,
  kSlotsExhausted,  // Count <= Used (CardTimeSlicingExhausted)
  kMemory,          // Totalmem - Usedmem < memreq (CardInsufficientMemory)
  kCores,           // Totalcore - Usedcores < Coresreq (CardInsufficientCore)
  kExclusive,       // 100 cores on a 100-core GPU that has a user (ExclusiveDeviceAllocateConflict)
  kCoresExhausted,  // 0 cores on a GPU whose cores are all used (CardComputeUnitsExhausted)
};
HamiMisfit hami_gpu_fit(const HamiDevice& dev, const HamiUsage& use, const HamiAsk& ask);

// Node score before the pod is added (policy/node_policy.go, ComputeDefaultScore), in float32
// as HAMi computes it: 10 x (used / count + used cores / total cores + used mem / total mem),
// each summed over the node's GPUs. Binpack takes the highest, spread the lowest.
float hami_node_score(int64_t used, int64_t count, int64_t used_cores, int64_t total_cores,
                      int64_t used_mem, int64_t total_mem);

// GPU score with the request added (policy/gpu_policy.go, ComputeScore, weights 1): 10 x ((1 +
// used) / count + (cores + used cores) / total cores + (memreq + used mem) / total mem).
float hami_gpu_score(const HamiDevice& dev, const HamiUsage& use, const HamiAsk& ask);

// A float32 score as an integer of the same order (non-negative floats order as their bits),
// so that the placement framework compares exactly what HAMi compares.
int64_t hami_score_key(float score);

}  // namespace slicelab
