#include "sim/metrics/fragmentation.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace slicelab {

TargetWorkload TargetWorkload::from_pods(std::span<const PodSpec> pods, const GpuCatalog& catalog,
                                         double coverage) {
  using Key = std::tuple<int64_t, int, int, uint64_t>;
  std::map<Key, size_t> counts;  // ordered: ties in count break by shape, reproducibly
  size_t gpu_pods = 0;
  for (const PodSpec& p : pods) {
    if (p.gpu_count == 0) continue;
    uint64_t mask = ~uint64_t{0};
    if (!p.allowed_models.empty()) {
      mask = 0;
      for (const auto& m : p.allowed_models)
        if (auto idx = catalog.index_of(m)) mask |= uint64_t{1} << *idx;
    }
    ++counts[{p.cpu_milli, p.gpu_count, p.gpu_milli, mask}];
    ++gpu_pods;
  }
  std::vector<std::pair<Key, size_t>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  TargetWorkload t;
  size_t covered = 0;
  for (const auto& [key, n] : sorted) {
    if (static_cast<double>(covered) >= coverage * static_cast<double>(gpu_pods)) break;
    const auto& [cpu, count, milli, mask] = key;
    t.shapes.push_back({cpu, count, milli, mask, static_cast<double>(n)});
    covered += n;
  }
  for (auto& s : t.shapes) s.freq /= static_cast<double>(covered);
  return t;
}

double node_fragmentation(const TargetWorkload& target, int64_t cpu_free, uint16_t model,
                          std::span<const int> gpu_free_milli) {
  int64_t total = 0;
  for (const int f : gpu_free_milli) total += f;
  if (total == 0) return 0.0;
  double frag = 0;
  for (const TargetShape& s : target.shapes) {
    const bool model_ok = ((s.model_mask >> model) & 1U) != 0;
    int fitting = 0;
    int64_t too_small = 0;
    for (const int f : gpu_free_milli) {
      if (f >= s.gpu_milli) {
        ++fitting;
      } else {
        too_small += f;
      }
    }
    const bool fits = model_ok && fitting >= s.gpu_count && cpu_free >= s.cpu_milli;
    frag += s.freq * static_cast<double>(fits ? too_small : total);
  }
  return frag;
}

}  // namespace slicelab
