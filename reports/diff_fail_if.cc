#include "reports/diff_fail_if.h"

#include <fmt/format.h>

#include "reports/metric_direction.h"
#include "reports/policy_choice.h"
#include "sim/metrics/decide_spec.h"

namespace slicelab {

std::optional<std::vector<FailCondition>> parse_fail_if(std::string_view text, std::string& why) {
  std::vector<FailCondition> out;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(start, end - start);
    start = end + 1;
    constexpr std::string_view kWorse = "worse:";
    if (!item.starts_with(kWorse)) {
      why = fmt::format("expected worse:METRIC (e.g. worse:queue_p99), found '{}'", item);
      return std::nullopt;
    }
    const std::string_view name = item.substr(kWorse.size());
    const RunMetric* m = decide_metric(name);
    if (!m) {
      why = fmt::format("'{}' is not a metric (one of: {}, or a summary.json key)", name,
                        decide_metric_names());
      return std::nullopt;
    }
    if (!better_direction(*m)) {
      why = fmt::format("'{}' has no better direction, so it cannot get worse", name);
      return std::nullopt;
    }
    out.push_back({m, std::string(item)});
  }
  return out;
}

std::vector<std::string> failed_conditions(const ResultsDiff& d,
                                           const std::vector<FailCondition>& conditions) {
  std::vector<std::string> out;
  for (const FailCondition& c : conditions)
    for (const DiffRow& r : d.rows)
      if (r.metric == c.metric && r.verdict == Verdict::kWorse)
        out.push_back(fmt::format("{} held: {} {} {} -> {} (beyond noise, {} test)", c.text,
                                  r.pair(),
                                  r.metric->json.empty() ? r.metric->column.head : r.metric->json,
                                  metric_phrase_value(*r.metric, r.a),
                                  metric_phrase_value(*r.metric, r.b), noise_test_name(d.test)));
  return out;
}

}  // namespace slicelab
