#include "sim/modes/hami/hami_node_summary.h"

#include <algorithm>

namespace slicelab {

void HamiNodeSummary::add(const HamiDevice& dev, const HamiUsage& use) {
  used += use.used;
  used_cores += use.used_cores;
  used_mem += use.used_mem;
  if (dev.count <= use.used) return;  // Fit's first test refuses it whatever the request
  ++open;
  idle += use.used == 0 ? 1 : 0;
  max_free_mem = std::max(max_free_mem, dev.total_mem - use.used_mem);
  max_free_cores = std::max(max_free_cores, dev.total_core - use.used_cores);
}

bool hami_node_may_fit(const HamiNodeSummary& s, const HamiDevice& dev, const HamiAsk& ask,
                       int gpus) {
  // Each clause is one of hami_gpu_fit's tests, weakened to "some open GPU passes it".
  if (s.open < gpus) return false;
  if (s.max_free_mem < hami_memory_request(ask, dev)) return false;
  const int cores = std::min(ask.cores, 100);
  if (s.max_free_cores < cores) return false;
  if (dev.total_core == 100 && cores == 100 && s.idle < gpus) return false;
  // 0 cores on a GPU whose cores are all used: a fitting GPU has a core left.
  if (dev.total_core != 0 && cores == 0 && s.max_free_cores < 1) return false;
  return true;
}

}  // namespace slicelab
