#include "sim/metrics/service_metrics.h"

#include <algorithm>
#include <cmath>

namespace slicelab {

bool is_service_metric(const RunMetric& m) {
  return m.block == MetricBlock::kNumber && m.access.get != nullptr &&
         m.json.starts_with("services.");
}

const ServiceSummary* find_service(const RunSummary& s, std::string_view name) {
  for (const ServiceSummary& v : s.services)
    if (v.name == name) return &v;
  return nullptr;
}

ServiceTotals service_figures(const ServiceSummary& v) {
  ServiceTotals t;
  t.requests = v.requests;
  t.dropped = v.dropped;
  t.unserved = v.unserved;
  t.lost = v.lost;
  t.latency_s = v.latency_s;
  t.within_slo = v.within_slo;
  t.services = 1;
  t.slo_services = v.within_slo ? 1 : 0;
  t.slo_met = v.slo_met.value_or(false) ? 1 : 0;
  t.gpu_hours = v.gpu_hours;
  t.gpu_hours_per_million = v.gpu_hours_per_million();
  return t;
}

std::optional<double> service_metric_value(const RunMetric& m, const RunSummary& s,
                                           std::string_view name) {
  const ServiceSummary* v = find_service(s, name);
  if (v == nullptr || !is_service_metric(m)) return std::nullopt;
  RunSummary view;
  view.service_totals = service_figures(*v);
  return metric_value(m, view);
}

std::vector<ServiceSummary> service_means(std::span<const RunSummary* const> seeds) {
  std::vector<ServiceSummary> out;
  if (seeds.empty()) return out;
  for (const ServiceSummary& first : seeds.front()->services) {
    std::vector<const ServiceSummary*> held;
    for (const RunSummary* s : seeds)
      if (const ServiceSummary* v = find_service(*s, first.name)) held.push_back(v);
    const auto k = static_cast<double>(held.size());
    auto avg = [&](auto field) {
      double sum = 0;
      for (const ServiceSummary* v : held) sum += static_cast<double>(field(*v));
      return sum / k;
    };
    ServiceSummary m;
    m.name = first.name;
    m.requests = avg([](const ServiceSummary& v) { return v.requests; });
    m.dropped = avg([](const ServiceSummary& v) { return v.dropped; });
    m.unserved = avg([](const ServiceSummary& v) { return v.unserved; });
    m.lost = avg([](const ServiceSummary& v) { return v.lost; });
    size_t served = 0;
    for (const ServiceSummary* v : held) {
      if (v->latency_s.count == 0) continue;
      ++served;
      m.latency_s.count += v->latency_s.count;
      m.latency_s.mean += v->latency_s.mean;
      m.latency_s.p50 += v->latency_s.p50;
      m.latency_s.p95 += v->latency_s.p95;
      m.latency_s.p99 += v->latency_s.p99;
    }
    if (served > 0) {
      const auto h = static_cast<double>(served);
      m.latency_s.count = std::max<size_t>(
          1, static_cast<size_t>(std::llround(static_cast<double>(m.latency_s.count) / k)));
      m.latency_s.mean /= h;
      m.latency_s.p50 /= h;
      m.latency_s.p95 /= h;
      m.latency_s.p99 /= h;
    }
    size_t slo = 0, met = 0;
    double within = 0;
    for (const ServiceSummary* v : held)
      if (v->within_slo) {
        ++slo;
        within += *v->within_slo;
        met += v->slo_met.value_or(false) ? 1 : 0;
      }
    if (slo > 0) {
      m.within_slo = within / static_cast<double>(slo);
      // Met in the mean when met in most seeds.
      m.slo_met = 2 * met > slo;
    }
    m.replicas_mean = avg([](const ServiceSummary& v) { return v.replicas_mean; });
    m.replicas_peak = static_cast<uint32_t>(
        std::llround(avg([](const ServiceSummary& v) { return v.replicas_peak; })));
    m.unplaced_peak = static_cast<uint32_t>(
        std::llround(avg([](const ServiceSummary& v) { return v.unplaced_peak; })));
    m.unplaced_replica_s = avg([](const ServiceSummary& v) { return v.unplaced_replica_s; });
    m.scale_ups = static_cast<uint32_t>(
        std::llround(avg([](const ServiceSummary& v) { return v.scale_ups; })));
    m.scale_downs = static_cast<uint32_t>(
        std::llround(avg([](const ServiceSummary& v) { return v.scale_downs; })));
    m.replica_failures = static_cast<uint32_t>(
        std::llround(avg([](const ServiceSummary& v) { return v.replica_failures; })));
    m.gpu_hours = avg([](const ServiceSummary& v) { return v.gpu_hours; });
    m.outside_checked = avg([](const ServiceSummary& v) { return v.outside_checked; });
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace slicelab
