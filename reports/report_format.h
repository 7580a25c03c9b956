// Reading figures out of summary.json / plan.json (where any key may be absent or null) and
// writing them for people: percentages, durations, counts, money.
#pragma once

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace slicelab {

// The number at `path` under `j`; nullopt when a key is missing, null or not a number.
std::optional<double> number_at(const nlohmann::ordered_json& j,
                                std::initializer_list<std::string_view> path);
// The string at `path`; "" when missing or not a string.
std::string text_at(const nlohmann::ordered_json& j, std::initializer_list<std::string_view> path);

// The "policies" array of a summary or plan (an empty array when absent), and a policy
// entry's name ("name", or "policy" in plan.json).
const nlohmann::ordered_json& policies_of(const nlohmann::ordered_json& j);
std::string policy_name(const nlohmann::ordered_json& policy);

std::string percent(std::optional<double> share);     // 0.517 -> "51.7%", nullopt -> "-"
std::string duration(std::optional<double> seconds);  // 420 -> "7.0m", nullopt -> "-"
std::string latency(
    std::optional<double> seconds);          // 0.085 -> "85ms", 2.5 -> "2.50s", 90 -> "1.5m"
std::string count(std::optional<double> v);  // 12 -> "12"
std::string decimal(std::optional<double> v, int digits);  // fixed digits after the point
std::string figure(double v);  // any figure, 4 significant digits (generic tables)

// A unit for a set of durations, so that an axis reads "hours" rather than "12600 s".
struct TimeUnit {
  double seconds = 1;
  std::string name = "s";
};
TimeUnit time_unit_for(double max_seconds);

}  // namespace slicelab
