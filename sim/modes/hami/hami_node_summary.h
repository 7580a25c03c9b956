// A node's GPUs as HAMi's filter needs them at a glance: a necessary condition of its per-GPU
// Fit, so that a node that cannot hold a pod is refused in one check, not one per GPU.
#pragma once

#include <cstdint>
#include <limits>

#include "sim/modes/hami/hami_fit.h"

namespace slicelab {

// Built by add() over every GPU of one node (one HamiDevice: a node's GPUs register alike).
// Contract: hami_node_may_fit is false only when fewer than the asked GPUs pass hami_gpu_fit;
// true says nothing (the per-GPU test decides). The sums give HAMi's node score unchanged.
struct HamiNodeSummary {
  int open = 0;  // GPUs with a free slot (Used < Count); only they can pass Fit
  int idle = 0;  // open GPUs with no tenant (an exclusive 100-core request needs them)
  int64_t max_free_mem = std::numeric_limits<int64_t>::min();  // over open GPUs
  int max_free_cores = std::numeric_limits<int>::min();        // over open GPUs
  int64_t used = 0;  // over all GPUs: HAMi's Used, Usedcores, Usedmem (hami_node_score)
  int64_t used_cores = 0;
  int64_t used_mem = 0;

  void add(const HamiDevice& dev, const HamiUsage& use);
};

bool hami_node_may_fit(const HamiNodeSummary& s, const HamiDevice& dev, const HamiAsk& ask,
                       int gpus);

}  // namespace slicelab
