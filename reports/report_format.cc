#include "reports/report_format.h"

#include <fmt/format.h>

#include <cmath>

namespace slicelab {

std::optional<double> number_at(const nlohmann::ordered_json& j,
                                std::initializer_list<std::string_view> path) {
  const nlohmann::ordered_json* at = &j;
  for (const std::string_view key : path) {
    if (!at->is_object()) return std::nullopt;
    const auto it = at->find(std::string(key));
    if (it == at->end()) return std::nullopt;
    at = &*it;
  }
  if (!at->is_number()) return std::nullopt;
  const double v = at->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

std::string text_at(const nlohmann::ordered_json& j, std::initializer_list<std::string_view> path) {
  const nlohmann::ordered_json* at = &j;
  for (const std::string_view key : path) {
    if (!at->is_object()) return "";
    const auto it = at->find(std::string(key));
    if (it == at->end()) return "";
    at = &*it;
  }
  return at->is_string() ? at->get<std::string>() : "";
}

const nlohmann::ordered_json& policies_of(const nlohmann::ordered_json& j) {
  static const nlohmann::ordered_json kEmpty = nlohmann::ordered_json::array();
  const auto it = j.find("policies");
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

std::string policy_name(const nlohmann::ordered_json& policy) {
  const std::string n = text_at(policy, {"name"});
  return n.empty() ? text_at(policy, {"policy"}) : n;
}

std::string percent(std::optional<double> share) {
  return share ? fmt::format("{:.1f}%", 100 * *share) : "-";
}

std::string duration(std::optional<double> s) {
  if (!s) return "-";
  const double v = *s;
  if (std::fabs(v) < 60) return fmt::format("{:.0f}s", v);
  if (std::fabs(v) < 3600) return fmt::format("{:.1f}m", v / 60);
  if (std::fabs(v) < 86400 * 2) return fmt::format("{:.1f}h", v / 3600);
  return fmt::format("{:.1f}d", v / 86400);
}

std::string latency(std::optional<double> s) {
  if (!s) return "-";
  if (std::fabs(*s) < 1) return fmt::format("{:.0f}ms", *s * 1000);
  if (std::fabs(*s) < 10) return fmt::format("{:.2f}s", *s);
  return duration(s);
}

std::string count(std::optional<double> v) {
  return v ? fmt::format("{:.0f}", *v) : "-";
}

std::string decimal(std::optional<double> v, int digits) {
  return v ? fmt::format("{:.{}f}", *v, digits) : "-";
}

std::string figure(double v) {
  // Whole thousands read better as 13300 than as 1.33e+04.
  if (std::fabs(v) >= 1e4 && std::fabs(v) < 1e12) return fmt::format("{:.0f}", v);
  return fmt::format("{:.4g}", v);
}

TimeUnit time_unit_for(double max_seconds) {
  if (max_seconds >= 2 * 86400) return {86400, "days"};
  if (max_seconds >= 2 * 3600) return {3600, "hours"};
  if (max_seconds >= 2 * 60) return {60, "minutes"};
  return {1, "seconds"};
}

}  // namespace slicelab
