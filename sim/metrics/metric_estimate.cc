#include "sim/metrics/metric_estimate.h"

#include <vector>

namespace slicelab {

std::optional<Estimate> metric_estimate(const RunMetric& m,
                                        std::span<const RunSummary* const> seeds) {
  if (m.block != MetricBlock::kNumber) return std::nullopt;
  std::vector<double> values;
  values.reserve(seeds.size());
  for (const RunSummary* s : seeds)
    if (const std::optional<double> v = metric_value(m, *s)) values.push_back(*v);
  if (values.empty()) return std::nullopt;
  return estimate(values);
}

}  // namespace slicelab
