#include "sim/metrics/distribution.h"

#include <algorithm>
#include <cmath>

namespace slicelab {

double nearest_rank(const std::vector<double>& sorted, double percent) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(percent / 100.0 * static_cast<double>(sorted.size()));
  const size_t idx = static_cast<size_t>(std::clamp(rank, 1.0, static_cast<double>(sorted.size())));
  return sorted[idx - 1];
}

Distribution distribution_of(std::vector<double>& values) {
  Distribution d;
  d.count = values.size();
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (const double v : values) sum += v;
  d.mean = sum / static_cast<double>(values.size());
  d.p50 = nearest_rank(values, 50);
  d.p95 = nearest_rank(values, 95);
  d.p99 = nearest_rank(values, 99);
  d.max = values.back();
  return d;
}

}  // namespace slicelab
