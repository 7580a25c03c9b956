#include "reports/results_writer.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace slicelab {
namespace {

using ojson = nlohmann::ordered_json;

// Nine significant digits: enough for any metric, and free of binary-fraction noise.
double tidy(double v) {
  if (!std::isfinite(v)) return 0.0;
  return std::stod(fmt::format("{:.9g}", v));
}

ojson opt(const std::optional<double>& v) {
  return v ? ojson(tidy(*v)) : ojson(nullptr);
}

ojson dist_json(const Distribution& d) {
  ojson j;
  j["count"] = d.count;
  for (const auto& [k, v] :
       {std::pair{"mean", d.mean}, {"p50", d.p50}, {"p95", d.p95}, {"p99", d.p99}, {"max", d.max}})
    j[k] = d.count ? ojson(tidy(v)) : ojson(nullptr);
  return j;
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string human_time(double s) {
  if (s < 60) return fmt::format("{:.0f}s", s);
  if (s < 3600) return fmt::format("{:.1f}m", s / 60);
  if (s < 86400 * 2) return fmt::format("{:.1f}h", s / 3600);
  return fmt::format("{:.1f}d", s / 86400);
}

void write_file(const std::filesystem::path& p, const std::string& content) {
  std::ofstream out(p, std::ios::binary);
  out << content;
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", p.string()));
}

}  // namespace

ojson summary_json(const Scenario& scenario, std::span<const RunResult> runs) {
  ojson root;
  root["format"] = "slicelab.summary/1";
  root["scenario"] = scenario.name;
  root["seed"] = scenario.seed;
  root["workload"] = {{"source", scenario.workload_source}, {"pods", scenario.pods.size()}};
  root["cluster"] = {{"nodes", scenario.cluster.node_count()},
                     {"gpus", scenario.cluster.gpu_count()}};
  ojson policies = ojson::array();
  for (const RunResult& r : runs) {
    const RunSummary& s = r.summary;
    ojson p;
    p["name"] = r.policy;
    p["placement"] = r.placement;
    p["sharing"] = r.sharing;
    p["pods"] = {{"total", s.pods},
                 {"completed", s.completed},
                 {"failed", s.failed},
                 {"unschedulable", s.unschedulable},
                 {"pending_at_end", s.pending_at_end},
                 {"running_at_end", s.running_at_end}};
    ojson reasons = ojson::object();
    for (const auto& [k, v] : s.not_placed_reasons) reasons[k] = v;
    p["not_placed_reasons"] = reasons;
    p["window_s"] = {{"start", tidy(s.window_start_s)}, {"end", tidy(s.window_end_s)}};
    p["allocation_ratio"] = {{"time_weighted", tidy(s.allocation_ratio)},
                             {"at_first_failure", opt(s.allocation_ratio_at_first_failure)},
                             {"first_failure_s", opt(s.first_failure_s)}};
    p["queue_delay_s"] = dist_json(s.queue_delay_s);
    p["jct_s"] = dist_json(s.jct_s);
    p["slowdown"] = dist_json(s.slowdown);
    p["utilization"] = {{"sm", tidy(s.sm_utilization)}, {"memory", tidy(s.memory_utilization)}};
    ojson models = ojson::array();
    for (const ModelUsage& u : s.per_model) {
      models.push_back({{"model", u.model},
                        {"gpus", u.gpus},
                        {"sm_utilization", tidy(u.sm_utilization)},
                        {"memory_utilization", tidy(u.memory_utilization)},
                        {"allocation_ratio", tidy(u.allocation_ratio)},
                        {"gpu_hours_provisioned", tidy(u.gpu_hours_provisioned)},
                        {"gpu_hours_allocated", tidy(u.gpu_hours_allocated)},
                        {"cost_usd", tidy(u.cost_usd)}});
    }
    p["per_model"] = models;
    p["slo"] = {{"pods", s.slo_pods},
                {"met", s.slo_met},
                {"undecided", s.slo_undecided},
                {"attainment", opt(s.slo_attainment)}};
    p["gpu_hours"] = {{"provisioned", tidy(s.gpu_hours_provisioned)},
                      {"allocated", tidy(s.gpu_hours_allocated)}};
    p["cost_usd"] = tidy(s.cost_usd);
    p["engine"] = {{"events", s.events}, {"placement_attempts", s.placement_attempts}};
    policies.push_back(std::move(p));
  }
  root["policies"] = std::move(policies);
  return root;
}

std::string pods_csv(const Scenario& scenario, std::span<const RunResult> runs) {
  // fmt::memory_buffer + appender: format_to into std::string's back_inserter goes a char
  // at a time, which made a 100,000-pod file take over a second.
  fmt::memory_buffer buf;
  auto out = fmt::appender(buf);
  fmt::format_to(out, "policy,pod,class,status,arrival_s,start_s,finish_s,queue_delay_s,jct_s,"
                      "slowdown,node,gpus,reason\n");
  auto opt_num = [&](bool present, double v) {
    if (present) fmt::format_to(out, "{:.9g}", v);
    buf.push_back(',');
  };
  for (const RunResult& r : runs) {
    const std::string policy = csv_field(r.policy);
    for (size_t i = 0; i < r.pods.size(); ++i) {
      const PodOutcome& o = r.pods[i];
      const PodSpec& spec = scenario.pods[i];
      const bool started = o.start_s >= 0 && o.status != PodStatus::kFailed;
      const bool done = o.status == PodStatus::kCompleted;
      fmt::format_to(out, "{},{},{},{},{:.9g},", policy, csv_field(spec.name),
                     csv_field(spec.workload_class), to_string(o.status), spec.arrival_s);
      opt_num(o.start_s >= 0, o.start_s);
      opt_num(o.finish_s >= 0, o.finish_s);
      opt_num(started, o.start_s - spec.arrival_s);
      opt_num(done, o.finish_s - spec.arrival_s);
      opt_num(done, (o.finish_s - spec.arrival_s) / o.solo_s);
      if (o.node >= 0) fmt::format_to(out, "{}", o.node);
      buf.push_back(',');
      for (uint32_t k = o.gpu_begin; k < o.gpu_end; ++k) {
        if (k != o.gpu_begin) buf.push_back(';');
        fmt::format_to(out, "{}", r.pod_gpus[k]);
      }
      fmt::format_to(out, ",{}\n", csv_field(o.reason));
    }
  }
  return fmt::to_string(buf);
}

std::string timeseries_csv(std::span<const RunResult> runs) {
  fmt::memory_buffer buf;
  auto out = fmt::appender(buf);
  fmt::format_to(out, "policy,time_s,allocation_ratio,sm_utilization,running,pending\n");
  for (const RunResult& r : runs) {
    const std::string policy = csv_field(r.policy);
    for (const Sample& s : r.samples)
      fmt::format_to(out, "{},{:.9g},{:.9g},{:.9g},{},{}\n", policy, s.time_s, s.allocation_ratio,
                     s.sm_utilization, s.running, s.pending);
  }
  return fmt::to_string(buf);
}

std::string comparison_table(std::span<const RunResult> runs) {
  const std::vector<std::string> head = {"policy",    "sharing",    "done",    "failed",
                                         "unplaced",  "alloc",      "SM util", "queue p50",
                                         "queue p99", "JCT p50",    "JCT p99", "slowdn p99",
                                         "SLO",       "GPU-h used", "cost $"};
  std::vector<std::vector<std::string>> rows;
  for (const RunResult& r : runs) {
    const RunSummary& s = r.summary;
    auto pct = [](double v) { return fmt::format("{:.1f}%", 100 * v); };
    auto t = [](const Distribution& d, double v) {
      return d.count ? human_time(v) : std::string("-");
    };
    rows.push_back(
        {r.policy, std::string(r.sharing.substr(0, r.sharing.find(' '))),
         fmt::format("{}", s.completed), fmt::format("{}", s.failed),
         fmt::format("{}", s.unschedulable + s.pending_at_end), pct(s.allocation_ratio),
         pct(s.sm_utilization), t(s.queue_delay_s, s.queue_delay_s.p50),
         t(s.queue_delay_s, s.queue_delay_s.p99), t(s.jct_s, s.jct_s.p50), t(s.jct_s, s.jct_s.p99),
         s.slowdown.count ? fmt::format("{:.2f}", s.slowdown.p99) : "-",
         s.slo_attainment ? pct(*s.slo_attainment) : "-",
         fmt::format("{:.1f}", s.gpu_hours_allocated), fmt::format("{:.2f}", s.cost_usd)});
  }
  std::vector<size_t> width(head.size());
  for (size_t c = 0; c < head.size(); ++c) {
    width[c] = head[c].size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size(); ++c) {
      // Text columns left-aligned, figures right-aligned.
      out += c < 2 ? fmt::format("{:<{}}", cells[c], width[c])
                   : fmt::format("{:>{}}", cells[c], width[c]);
      out += c + 1 < cells.size() ? "  " : "\n";
    }
  };
  line(head);
  std::vector<std::string> rule;
  rule.reserve(width.size());
  for (const size_t w : width) rule.emplace_back(w, '-');
  line(rule);
  for (const auto& row : rows) line(row);
  return out;
}

void write_results(const std::string& dir, const Scenario& scenario,
                   std::span<const RunResult> runs) {
  namespace fs = std::filesystem;
  const fs::path target(dir);
  const fs::path tmp = target.string() + fmt::format(".tmp-{}", ::getpid());
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  try {
    write_file(tmp / "summary.json", summary_json(scenario, runs).dump(2) + "\n");
    write_file(tmp / "pods.csv", pods_csv(scenario, runs));
    write_file(tmp / "timeseries.csv", timeseries_csv(runs));
    fs::remove_all(target);
    fs::rename(tmp, target);
  } catch (...) {
    fs::remove_all(tmp);
    throw;
  }
}

}  // namespace slicelab
