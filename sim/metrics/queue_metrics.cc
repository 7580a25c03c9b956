#include "sim/metrics/queue_metrics.h"

#include <algorithm>
#include <cmath>

#include "sim/metrics/distribution.h"

namespace slicelab {
namespace {

std::optional<double> fairness_of(const QueueSummary& q) {
  if (!q.share_while_waiting || q.fair_share <= 0) return std::nullopt;
  return *q.share_while_waiting / q.fair_share;
}

// The mean of the seeds' distributions, field by field, over those with values.
Distribution mean_of(std::span<const Distribution* const> ds) {
  Distribution out;
  size_t holders = 0;
  double count = 0;
  for (const Distribution* d : ds) {
    count += static_cast<double>(d->count);
    if (d->count == 0) continue;
    ++holders;
    out.mean += d->mean;
    out.p50 += d->p50;
    out.p95 += d->p95;
    out.p99 += d->p99;
    out.max += d->max;
  }
  if (holders == 0) return Distribution{};
  const auto h = static_cast<double>(holders);
  out.count = static_cast<size_t>(std::llround(count / static_cast<double>(ds.size())));
  out.count = std::max<size_t>(out.count, 1);
  out.mean /= h;
  out.p50 /= h;
  out.p95 /= h;
  out.p99 /= h;
  out.max /= h;
  return out;
}

}  // namespace

QueueTotals queue_totals(std::span<const QueueSummary> queues,
                         std::span<const double> admission_waits) {
  QueueTotals t;
  for (const QueueSummary& q : queues) {
    t.borrowed_gpu_hours += q.usage.borrowed_gpu_s / 3600.0;
    t.reclaimed += q.usage.reclaimed;
    if (const auto f = fairness_of(q)) t.fairness = t.fairness ? std::min(*t.fairness, *f) : *f;
  }
  std::vector<double> waits(admission_waits.begin(), admission_waits.end());
  t.admission_wait_s = distribution_of(waits);
  return t;
}

QueueTotals queue_figures(const QueueSummary& q) {
  QueueTotals t;
  t.fairness = fairness_of(q);
  t.borrowed_gpu_hours = q.usage.borrowed_gpu_s / 3600.0;
  t.reclaimed = q.usage.reclaimed;
  t.admission_wait_s = q.admission_wait_s;
  return t;
}

bool has_queue_figure(const RunMetric& m) {
  return m.block == MetricBlock::kNumber && m.access.get != nullptr &&
         (m.json.starts_with("jobs.") || m.json.starts_with("queues."));
}

const QueueSummary* find_queue(const RunSummary& s, std::string_view name) {
  for (const QueueSummary& q : s.queues)
    if (q.name == name) return &q;
  return nullptr;
}

std::optional<double> queue_metric_value(const RunMetric& m, const RunSummary& s,
                                         std::string_view name) {
  const QueueSummary* q = find_queue(s, name);
  if (q == nullptr || !has_queue_figure(m)) return std::nullopt;
  RunSummary view;
  JobSummary& jobs = view.jobs.emplace();
  jobs.jobs = q->jobs;
  jobs.started = q->started;
  jobs.completed = q->completed;
  jobs.queue_delay_s = q->queue_delay_s;
  jobs.jct_s = q->jct_s;
  view.queue_totals = queue_figures(*q);
  return metric_value(m, view);
}

std::vector<QueueSummary> queue_means(std::span<const RunSummary* const> seeds) {
  std::vector<QueueSummary> out;
  if (seeds.empty()) return out;
  for (const QueueSummary& first : seeds.front()->queues) {
    std::vector<const QueueSummary*> held;
    for (const RunSummary* s : seeds)
      if (const QueueSummary* q = find_queue(*s, first.name)) held.push_back(q);
    const auto k = static_cast<double>(held.size());
    QueueSummary m;
    m.name = first.name;
    m.cohort = first.cohort;
    m.nominal_gpus = first.nominal_gpus;
    m.fair_share = first.fair_share;
    double waiting_share = 0;
    size_t waiting_holders = 0;
    auto avg = [&](auto field) {
      double sum = 0;
      for (const QueueSummary* q : held) sum += static_cast<double>(field(*q));
      return sum / k;
    };
    auto rounded = [&](auto field) { return static_cast<size_t>(std::llround(avg(field))); };
    m.usage.gpu_s = avg([](const QueueSummary& q) { return q.usage.gpu_s; });
    m.usage.borrowed_gpu_s = avg([](const QueueSummary& q) { return q.usage.borrowed_gpu_s; });
    m.usage.peak_borrowed_gpus =
        avg([](const QueueSummary& q) { return q.usage.peak_borrowed_gpus; });
    m.usage.waiting_s = avg([](const QueueSummary& q) { return q.usage.waiting_s; });
    m.usage.share_waiting_s = avg([](const QueueSummary& q) { return q.usage.share_waiting_s; });
    m.usage.admitted = rounded([](const QueueSummary& q) { return q.usage.admitted; });
    m.usage.reclaimed = rounded([](const QueueSummary& q) { return q.usage.reclaimed; });
    m.usage.reclaims = rounded([](const QueueSummary& q) { return q.usage.reclaims; });
    m.mean_gpus = avg([](const QueueSummary& q) { return q.mean_gpus; });
    m.gpu_share = avg([](const QueueSummary& q) { return q.gpu_share; });
    for (const QueueSummary* q : held)
      if (q->share_while_waiting) {
        waiting_share += *q->share_while_waiting;
        ++waiting_holders;
      }
    if (waiting_holders > 0)
      m.share_while_waiting = waiting_share / static_cast<double>(waiting_holders);
    m.jobs = rounded([](const QueueSummary& q) { return q.jobs; });
    m.admitted = rounded([](const QueueSummary& q) { return q.admitted; });
    m.started = rounded([](const QueueSummary& q) { return q.started; });
    m.completed = rounded([](const QueueSummary& q) { return q.completed; });
    m.lost_gpu_hours = avg([](const QueueSummary& q) { return q.lost_gpu_hours; });
    std::vector<const Distribution*> d;
    for (auto member :
         {&QueueSummary::admission_wait_s, &QueueSummary::queue_delay_s, &QueueSummary::jct_s}) {
      d.clear();
      for (const QueueSummary* q : held) d.push_back(&(q->*member));
      m.*member = mean_of(d);
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace slicelab
