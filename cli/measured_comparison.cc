#include "cli/measured_comparison.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <vector>

#include "reports/json_file.h"
#include "reports/results_writer.h"
#include "sim/scenario/run_policies.h"
#include "sim/scenario/scenario.h"

namespace slicelab {
namespace {

// The compared metrics: a label and the JSON path of the figure in a policy's summary.
struct Metric {
  const char* label;
  std::vector<const char*> path;
};
const std::vector<Metric>& metrics() {
  static const std::vector<Metric> m{
      {"pods completed", {"pods", "completed"}},
      {"pods failed", {"pods", "failed"}},
      {"pods unschedulable", {"pods", "unschedulable"}},
      {"queue delay p50 (s)", {"queue_delay_s", "p50"}},
      {"queue delay p95 (s)", {"queue_delay_s", "p95"}},
      {"JCT mean (s)", {"jct_s", "mean"}},
      {"JCT p50 (s)", {"jct_s", "p50"}},
      {"JCT p95 (s)", {"jct_s", "p95"}},
      {"JCT p99 (s)", {"jct_s", "p99"}},
      {"JCT max (s)", {"jct_s", "max"}},
      {"slowdown mean", {"slowdown", "mean"}},
      {"allocation ratio", {"allocation_ratio", "time_weighted"}},
  };
  return m;
}

std::optional<double> value_at(const nlohmann::json& policy, const Metric& m) {
  const nlohmann::json* j = &policy;
  for (const char* key : m.path) {
    if (!j->is_object() || !j->contains(key)) return std::nullopt;
    j = &(*j)[key];
  }
  return j->is_number() ? std::optional<double>(j->get<double>()) : std::nullopt;
}

const nlohmann::json* policy_named(const nlohmann::json& summary, const std::string& name) {
  if (!summary.contains("policies")) return nullptr;
  for (const auto& p : summary["policies"])
    if (p.value("name", std::string()) == name) return &p;
  return nullptr;
}

std::string num(std::optional<double> v) {
  return v ? fmt::format("{:.4g}", *v) : std::string("-");
}

std::string key_of(const Metric& m) {
  std::string key;
  for (const char* part : m.path) key += (key.empty() ? "" : ".") + std::string(part);
  return key;
}

nlohmann::ordered_json number_or_null(std::optional<double> v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

nlohmann::ordered_json measured_comparison_json(const nlohmann::json& simulated,
                                                const nlohmann::json& measured) {
  nlohmann::ordered_json policies = nlohmann::ordered_json::array();
  for (const auto& mp : measured.value("policies", nlohmann::json::array())) {
    const std::string name = mp.value("name", std::string());
    const nlohmann::json* sp = policy_named(simulated, name);
    if (!sp) continue;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const Metric& m : metrics()) {
      const auto s = value_at(*sp, m), v = value_at(mp, m);
      const std::optional<double> err = s && v ? std::optional<double>(*v - *s) : std::nullopt;
      rows.push_back(
          {{"metric", m.label},
           {"key", key_of(m)},
           {"simulated", number_or_null(s)},
           {"measured", number_or_null(v)},
           {"error", number_or_null(err)},
           {"error_ratio",
            number_or_null(err && *s != 0 ? std::optional<double>(*err / *s) : std::nullopt)}});
    }
    policies.push_back({{"name", name}, {"metrics", std::move(rows)}});
  }
  if (policies.empty())
    throw std::runtime_error("the measured results share no policy name with the scenario");
  nlohmann::ordered_json j;
  j["format"] = "slicelab.compare-measured/1";
  j["policies"] = std::move(policies);
  return j;
}

std::string measured_comparison_table(const nlohmann::json& simulated,
                                      const nlohmann::json& measured) {
  std::string out;
  size_t matched = 0;
  for (const auto& mp : measured.value("policies", nlohmann::json::array())) {
    const std::string name = mp.value("name", std::string());
    const nlohmann::json* sp = policy_named(simulated, name);
    if (!sp) continue;
    ++matched;
    out += fmt::format("policy {}\n{:<22} {:>12} {:>12} {:>12} {:>9}\n", name, "metric",
                       "simulated", "measured", "error", "error %");
    for (const Metric& m : metrics()) {
      const auto s = value_at(*sp, m), v = value_at(mp, m);
      const std::optional<double> err = s && v ? std::optional<double>(*v - *s) : std::nullopt;
      const std::string pct = err && *s != 0 ? fmt::format("{:+.1f}%", 100 * *err / *s) : "-";
      out += fmt::format("{:<22} {:>12} {:>12} {:>12} {:>9}\n", m.label, num(s), num(v),
                         err ? fmt::format("{:+.4g}", *err) : "-", pct);
    }
    out += "\n";
  }
  if (matched == 0)
    throw std::runtime_error("the measured results share no policy name with the scenario");
  return out;
}

int compare_with_measured(const std::string& scenario_path, const std::string& measured_dir,
                          int jobs, bool json) {
  const auto file = std::filesystem::path(measured_dir) / "summary.json";
  const nlohmann::json measured(read_json_file(file.string()));
  if (!measured.is_object() || !measured.contains("policies"))
    throw std::runtime_error(fmt::format("{} is not a slicelab summary", file.string()));
  const Scenario sc = load_scenario(scenario_path);
  std::vector<size_t> which;
  for (size_t i = 0; i < sc.policies.size(); ++i)
    if (policy_named(measured, sc.policies[i].name)) which.push_back(i);
  if (which.empty())
    throw std::runtime_error(fmt::format("{} holds no policy of {}", file.string(), scenario_path));
  const std::vector<RunResult> sim = run_policies(sc, which, jobs);
  const nlohmann::json simulated = nlohmann::json::parse(summary_json(sc, sim).dump());
  try {
    if (json) {
      nlohmann::ordered_json doc = measured_comparison_json(simulated, measured);
      nlohmann::ordered_json out;
      out["format"] = doc["format"];
      out["scenario"] = sc.name;
      out["measured"] = measured_dir;
      out["policies"] = std::move(doc["policies"]);
      std::printf("%s\n", out.dump(2).c_str());
      return 0;
    }
    std::printf("%s: simulated vs measured (%s)\n\n", sc.name.c_str(), measured_dir.c_str());
    std::fputs(measured_comparison_table(simulated, measured).c_str(), stdout);
  } catch (const nlohmann::json::exception& e) {
    throw json_content_error(file.string(), e);
  }
  return 0;
}

}  // namespace slicelab
