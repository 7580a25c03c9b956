#include "reports/report_uncertainty.h"

#include <fmt/format.h>

#include <cmath>
#include <functional>

#include "reports/report_format.h"

namespace slicelab {
namespace {

using ojson = nlohmann::ordered_json;

std::optional<double> finite_number(const ojson& j) {
  if (!j.is_number()) return std::nullopt;
  const double v = j.get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

std::optional<double> member(const ojson& j, const char* key) {
  const auto it = j.find(key);
  return it == j.end() ? std::nullopt : finite_number(*it);
}

std::string appended(const std::string& cell, std::string_view key, const ojson& policy,
                     const std::function<std::string(double)>& write) {
  if (cell == "-") return cell;
  const auto s = figure_spread(policy, key);
  if (!s) return cell;
  if (spans_seed_range(key)) {
    if (!s->min || !s->max || s->n < 2) return cell;
    return fmt::format("{} ({}-{})", cell, write(*s->min), write(*s->max));
  }
  if (!s->ci_low || !s->ci_high) return cell;
  return fmt::format("{} ± {}", cell, write((*s->ci_high - *s->ci_low) / 2));
}

}  // namespace

std::string spread_count(std::optional<double> v) {
  return v && std::abs(*v) < 10 ? decimal(v, 1) : count(v);
}

std::string spread_note(const ojson& summary) {
  if (!has_uncertainty(summary)) return "";
  return fmt::format(
      "Over {} seeds: \"a ± b\" is the mean and half its 95% confidence interval; \"a (lo-hi)\" "
      "after a maximum is the mean and the range over seeds.",
      seed_count(summary));
}

std::optional<FigureSpread> figure_spread(const ojson& policy, std::string_view key) {
  if (!policy.is_object()) return std::nullopt;
  const auto block = policy.find("uncertainty");
  if (block == policy.end() || !block->is_object()) return std::nullopt;
  const auto entry = block->find(std::string(key));
  if (entry == block->end() || !entry->is_object()) return std::nullopt;
  const auto n = member(*entry, "n");
  if (!n || *n < 0) return std::nullopt;
  FigureSpread s;
  s.n = static_cast<size_t>(*n);
  if (const auto ci = entry->find("ci95");
      ci != entry->end() && ci->is_array() && ci->size() == 2) {
    const auto lo = finite_number((*ci)[0]), hi = finite_number((*ci)[1]);
    if (lo && hi && *lo <= *hi) {
      s.ci_low = lo;
      s.ci_high = hi;
    }
  }
  s.min = member(*entry, "min");
  s.max = member(*entry, "max");
  return s;
}

bool spans_seed_range(std::string_view key) {
  return key.ends_with(".max");
}

std::optional<ErrorBar> error_bar(const ojson& policy, std::string_view key) {
  const auto s = figure_spread(policy, key);
  if (!s) return std::nullopt;
  if (spans_seed_range(key)) {
    if (s->n < 2 || !s->min || !s->max) return std::nullopt;
    return ErrorBar{*s->min, *s->max, true};
  }
  if (!s->ci_low || !s->ci_high) return std::nullopt;
  return ErrorBar{*s->ci_low, *s->ci_high, false};
}

size_t seed_count(const ojson& summary) {
  const auto it = summary.find("seeds");
  return it != summary.end() && it->is_array() ? it->size() : 0;
}

bool has_uncertainty(const ojson& summary) {
  for (const ojson& p : policies_of(summary))
    if (const auto it = p.find("uncertainty"); it != p.end() && it->is_object()) return true;
  return false;
}

std::string cell_with_spread(const RunMetric& m, const std::string& cell, const ojson& policy) {
  if (m.json.empty()) return cell;  // derived rows (sums) have no entry of their own
  switch (m.column.format) {
    case CellFormat::kInteger:
      return appended(cell, m.json, policy, [](double v) { return spread_count(v); });
    case CellFormat::kPercent:
      return appended(cell, m.json, policy, [](double v) { return percent(v); });
    case CellFormat::kDuration:
      return appended(cell, m.json, policy, [](double v) { return duration(v); });
    case CellFormat::kFixed1:
      return appended(cell, m.json, policy, [](double v) { return decimal(v, 1); });
    case CellFormat::kFixed2:
      return appended(cell, m.json, policy, [](double v) { return decimal(v, 2); });
    case CellFormat::kLatency:
      return appended(cell, m.json, policy, [](double v) { return latency(v); });
    case CellFormat::kPointsMeanMax:
      return cell;
  }
  return cell;
}

std::string cell_with_spread(std::string_view key, const std::string& cell, const ojson& policy,
                             std::string (*format)(std::optional<double>)) {
  return appended(cell, key, policy, [format](double v) { return format(v); });
}

}  // namespace slicelab
