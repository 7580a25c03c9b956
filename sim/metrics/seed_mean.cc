#include "sim/metrics/seed_mean.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sim/metrics/class_metrics.h"
#include "sim/metrics/queue_metrics.h"
#include "sim/metrics/run_metrics.h"
#include "sim/metrics/service_metrics.h"

namespace slicelab {
namespace {

double rounded(double v) {
  return static_cast<double>(std::llround(v));
}

// One row's figure over the seeds: set only when some seed holds a value.
void combine(const RunMetric& m, std::span<const RunSummary* const> seeds, RunSummary& out) {
  if (!m.access.get || !m.access.set || m.mean == SeedMean::kNotAveraged) return;
  const double k = static_cast<double>(seeds.size());
  double acc = 0;
  size_t holders = 0;
  for (const RunSummary* s : seeds) {
    const auto v = m.access.get(*s);
    if (!v) continue;
    ++holders;
    switch (m.mean) {
      case SeedMean::kMean:
        acc += *v / k;
        break;
      case SeedMean::kRoundedMean:
      case SeedMean::kMeanOfHolders:
        acc += *v;
        break;
      case SeedMean::kRoundedEach:
        acc += rounded(*v / k);
        break;
      case SeedMean::kLast:
        acc = *v;
        break;
      case SeedMean::kNotAveraged:
      case SeedMean::kOfTheMeans:
        break;
    }
  }
  if (holders == 0) return;
  if (m.mean == SeedMean::kRoundedMean) acc = rounded(acc / k);
  if (m.mean == SeedMean::kMeanOfHolders) acc /= static_cast<double>(holders);
  m.access.set(out, acc);
}

// Per class (matched by name, in name order): the seed mean of the class's figures over the
// seeds whose run has pods of it.
std::vector<ClassSummary> class_means(std::span<const RunSummary* const> seeds) {
  std::vector<std::string> names;
  for (const RunSummary* s : seeds)
    for (const ClassSummary& c : s->per_class) names.push_back(c.workload_class);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::vector<ClassSummary> out;
  for (std::string& name : names) {
    std::vector<RunSummary> views;
    for (const RunSummary* s : seeds)
      if (const ClassSummary* c = find_class(*s, name)) views.push_back(class_as_summary(*c));
    if (views.empty()) continue;
    std::vector<const RunSummary*> held;
    held.reserve(views.size());
    for (const RunSummary& v : views) held.push_back(&v);
    out.push_back(summary_as_class(std::move(name), seed_mean(held)));
  }
  return out;
}

}  // namespace

RunSummary seed_mean(std::span<const RunSummary* const> seeds) {
  RunSummary out;
  if (seeds.empty()) return out;
  for (const RunMetric& m : run_metrics()) combine(m, seeds, out);
  const double k = static_cast<double>(seeds.size());
  for (const RunSummary* s : seeds)
    for (const auto& [reason, n] : s->not_placed_reasons) out.not_placed_reasons[reason] += n;
  for (auto& [reason, n] : out.not_placed_reasons)
    n = static_cast<size_t>(std::llround(static_cast<double>(n) / k));
  out.per_class = class_means(seeds);
  out.queues = queue_means(seeds);
  out.services = service_means(seeds);
  return out;
}

}  // namespace slicelab
