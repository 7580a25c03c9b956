// The queues' figures of a run (RunSummary::queues, ::queue_totals): their totals, the seed
// means per queue, and one queue seen as a small RunSummary so that a `decide:` target can name
// it like a class: `jobs.queue_delay_s.p95[queue:team-a]`, `fairness[queue:team-b]`.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/metrics/run_metrics.h"

namespace slicelab {

// A decide: name's bracket that names a queue rather than a class: "queue:team-a".
inline constexpr std::string_view kQueuePrefix = "queue:";

// The totals of `queues`; `admission_waits` per admitted job, any order.
QueueTotals queue_totals(std::span<const QueueSummary> queues,
                         std::span<const double> admission_waits);
// Queue q's own figures as totals: its fairness, borrowing, reclaimed jobs and waits.
QueueTotals queue_figures(const QueueSummary& q);

// Whether row `m` has a per-queue figure: the jobs.* and queues.* rows.
bool has_queue_figure(const RunMetric& m);
// The queue named `name` in `s`; nullptr when the run has none of that name.
const QueueSummary* find_queue(const RunSummary& s, std::string_view name);
// Row `m`'s figure for queue `name` of `s`: none when there is no such queue or value.
std::optional<double> queue_metric_value(const RunMetric& m, const RunSummary& s,
                                         std::string_view name);

// Per queue (matched by name, in the first seed's order): the mean of each figure over the
// seeds whose run has the queue.
std::vector<QueueSummary> queue_means(std::span<const RunSummary* const> seeds);

}  // namespace slicelab
