// The services' figures of a run (RunSummary::services, ::service_totals): one service seen as
// the services' totals, so that a `decide:` or plan target can name it as it names a class
// (`latency_p99[chat]`, `requests_within_slo[chat]`), and the seed means per service.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/metrics/run_metrics.h"

namespace slicelab {

// Whether row `m` is a services.* figure (one a service-named target may use).
bool is_service_metric(const RunMetric& m);
// The service named `name` in `s`; nullptr when the run has none of that name.
const ServiceSummary* find_service(const RunSummary& s, std::string_view name);
// Service `v`'s own figures as the services' totals.
ServiceTotals service_figures(const ServiceSummary& v);
// Row `m`'s figure for service `name` of `s`: none when there is no such service or value.
std::optional<double> service_metric_value(const RunMetric& m, const RunSummary& s,
                                           std::string_view name);

// Per service (matched by name, in the first seed's order): the mean of each figure over the
// seeds whose run has the service; percentiles over the seeds that served requests.
std::vector<ServiceSummary> service_means(std::span<const RunSummary* const> seeds);

}  // namespace slicelab
