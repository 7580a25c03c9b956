#include "sim/modes/hami/hami_fit.h"

#include <bit>
#include <cstdint>

namespace slicelab {

int64_t hami_memory_request(const HamiAsk& ask, const HamiDevice& dev) {
  if (ask.mem_mib > 0) return ask.mem_mib;
  const int percent = ask.mem_percent > 0 ? ask.mem_percent : 100;
  return dev.total_mem * percent / 100;
}

HamiMisfit hami_gpu_fit(const HamiDevice& dev, const HamiUsage& use, const HamiAsk& ask) {
  const int cores = ask.cores > 100 ? 100 : ask.cores;  // "core limit can't exceed 100"
  if (dev.count <= use.used) return HamiMisfit::kSlotsExhausted;
  if (dev.total_mem - use.used_mem < hami_memory_request(ask, dev)) return HamiMisfit::kMemory;
  if (dev.total_core - use.used_cores < cores) return HamiMisfit::kCores;
  if (dev.total_core == 100 && cores == 100 && use.used > 0) return HamiMisfit::kExclusive;
  if (dev.total_core != 0 && use.used_cores == dev.total_core && cores == 0)
    return HamiMisfit::kCoresExhausted;
  return HamiMisfit::kFits;
}

float hami_node_score(int64_t used, int64_t count, int64_t used_cores, int64_t total_cores,
                      int64_t used_mem, int64_t total_mem) {
  if (count == 0 || total_cores == 0 || total_mem == 0) return 0.0F;
  const float use_score = static_cast<float>(used) / static_cast<float>(count);
  const float core_score = static_cast<float>(used_cores) / static_cast<float>(total_cores);
  const float mem_score = static_cast<float>(used_mem) / static_cast<float>(total_mem);
  return 10.0F * (use_score + core_score + mem_score);
}

float hami_gpu_score(const HamiDevice& dev, const HamiUsage& use, const HamiAsk& ask) {
  if (dev.count == 0 || dev.total_core == 0 || dev.total_mem == 0) return 0.0F;
  const float used_score = static_cast<float>(1 + use.used) / static_cast<float>(dev.count);
  const float core_score =
      static_cast<float>(ask.cores + use.used_cores) / static_cast<float>(dev.total_core);
  const float mem_score = static_cast<float>(hami_memory_request(ask, dev) + use.used_mem) /
                          static_cast<float>(dev.total_mem);
  return 10.0F * (1.0F * used_score + 1.0F * core_score + 1.0F * mem_score);
}

int64_t hami_score_key(float score) {
  return score > 0 ? static_cast<int64_t>(std::bit_cast<uint32_t>(score)) : 0;
}

}  // namespace slicelab
