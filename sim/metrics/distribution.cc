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

namespace {

// The index nearest_rank reads for `percent` of n sorted values.
size_t rank_index(size_t n, double percent) {
  const double rank = std::ceil(percent / 100.0 * static_cast<double>(n));
  return static_cast<size_t>(std::clamp(rank, 1.0, static_cast<double>(n))) - 1;
}

}  // namespace

Distribution distribution_of(std::vector<double>& values) {
  Distribution d;
  d.count = values.size();
  if (values.empty()) return d;
  // A long double (64-bit mantissa on x86) keeps the sum's rounding error far below a double's
  // last bit, so the mean hardly depends on the values' order (they were summed sorted before).
  long double sum = 0;
  for (const double v : values) sum += v;
  d.mean = static_cast<double>(sum / static_cast<long double>(values.size()));
  // Each selection narrows the next to the elements above it: three linear passes over
  // shrinking ranges, not a sort.
  auto from = values.begin();
  const auto select = [&](double percent) {
    const auto at =
        values.begin() + static_cast<std::ptrdiff_t>(rank_index(values.size(), percent));
    std::nth_element(from, at, values.end());
    from = at;
    return *at;
  };
  d.p50 = select(50);
  d.p95 = select(95);
  d.p99 = select(99);
  d.max = *std::max_element(from, values.end());
  return d;
}

}  // namespace slicelab
