#include "reports/results_writer.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "reports/atomic_folder.h"
#include "reports/output_values.h"

namespace slicelab {
namespace {

using ojson = nlohmann::ordered_json;

ojson dist_json(const Distribution& d) {
  ojson j;
  j["count"] = d.count;
  for (const auto& [k, v] :
       {std::pair{"mean", d.mean}, {"p50", d.p50}, {"p95", d.p95}, {"p99", d.p99}, {"max", d.max}})
    j[k] = d.count ? ojson(tidy_value(v)) : ojson(nullptr);
  return j;
}

std::string human_time(double s) {
  if (s < 60) return fmt::format("{:.0f}s", s);
  if (s < 3600) return fmt::format("{:.1f}m", s / 60);
  if (s < 86400 * 2) return fmt::format("{:.1f}h", s / 3600);
  return fmt::format("{:.1f}d", s / 86400);
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
    p["window_s"] = {{"start", tidy_value(s.window_start_s)}, {"end", tidy_value(s.window_end_s)}};
    p["allocation_ratio"] = {{"time_weighted", tidy_value(s.allocation_ratio)},
                             {"at_first_failure", json_value(s.allocation_ratio_at_first_failure)},
                             {"first_failure_s", json_value(s.first_failure_s)}};
    p["fragmentation_ratio"] = tidy_value(s.fragmentation_ratio);
    if (s.communication_quality.count > 0)
      p["communication_quality"] = dist_json(s.communication_quality);
    if (s.fill) {
      const FillSummary& f = *s.fill;
      p["fill"] = {{"capacity_gpus", tidy_value(f.capacity_gpus)},
                   {"arrived_at_end", tidy_value(f.arrived_at_end)},
                   {"at_full",
                    {{"allocated", tidy_value(f.allocated_at_full)},
                     {"fragmented", tidy_value(f.fragmented_at_full)},
                     {"failed", tidy_value(f.failed_at_full)}}},
                   {"at_end",
                    {{"allocated", tidy_value(f.allocated_at_end)},
                     {"fragmented", tidy_value(f.fragmented_at_end)},
                     {"failed", tidy_value(f.failed_at_end)}}}};
    }
    p["queue_delay_s"] = dist_json(s.queue_delay_s);
    p["jct_s"] = dist_json(s.jct_s);
    p["slowdown"] = dist_json(s.slowdown);
    p["utilization"] = {{"sm", tidy_value(s.sm_utilization)},
                        {"memory", tidy_value(s.memory_utilization)}};
    ojson models = ojson::array();
    for (const ModelUsage& u : s.per_model) {
      models.push_back({{"model", u.model},
                        {"gpus", u.gpus},
                        {"sm_utilization", tidy_value(u.sm_utilization)},
                        {"memory_utilization", tidy_value(u.memory_utilization)},
                        {"allocation_ratio", tidy_value(u.allocation_ratio)},
                        {"gpu_hours_provisioned", tidy_value(u.gpu_hours_provisioned)},
                        {"gpu_hours_allocated", tidy_value(u.gpu_hours_allocated)},
                        {"cost_usd", tidy_value(u.cost_usd)}});
    }
    p["per_model"] = models;
    p["slo"] = {{"pods", s.slo_pods},
                {"met", s.slo_met},
                {"undecided", s.slo_undecided},
                {"attainment", json_value(s.slo_attainment)}};
    p["gpu_hours"] = {{"provisioned", tidy_value(s.gpu_hours_provisioned)},
                      {"allocated", tidy_value(s.gpu_hours_allocated)}};
    p["cost_usd"] = tidy_value(s.cost_usd);
    if (s.mig)
      p["mig"] = {{"reconfigurations", s.mig->reconfigurations},
                  {"reconfiguration_gpu_s", tidy_value(s.mig->reconfiguration_gpu_s)},
                  {"stranded_ratio", tidy_value(s.mig->stranded_ratio)}};
    p["engine"] = {{"events", s.events}, {"placement_attempts", s.placement_attempts}};
    // Capped modes (issue 4): isolation error over capped pods, failures caused by neighbours.
    if (s.isolation_error.count > 0) p["isolation_error"] = dist_json(s.isolation_error);
    p["neighbour_failures"] = s.neighbour_failures;
    policies.push_back(std::move(p));
  }
  root["policies"] = std::move(policies);
  return root;
}

namespace {

// Rows are formatted into a small buffer that is handed to the stream whenever it passes this
// size, so a file of any length needs only this much memory to write (docs/performance.md).
constexpr size_t kFlushBytes = size_t{1} << 16;

void flush_to(std::ostream& out, fmt::memory_buffer& buf) {
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  buf.clear();
}

}  // namespace

void write_pods_csv(std::ostream& stream, const Scenario& scenario,
                    std::span<const RunResult> runs) {
  // fmt::memory_buffer + appender: format_to into std::string's back_inserter goes a char
  // at a time, which made a 100,000-pod file take over a second.
  fmt::memory_buffer buf;
  auto out = fmt::appender(buf);
  fmt::format_to(out,
                 "policy,pod,class,status,arrival_s,start_s,finish_s,queue_delay_s,jct_s,"
                 "slowdown,node,gpus,reason,isolation_error\n");
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
      fmt::format_to(out, ",{}", csv_field(r.reason_of(i)));
      // Empty for pods no mode capped (docs/sharing-models.md).
      buf.push_back(',');
      if (o.isolation_error >= 0) fmt::format_to(out, "{:.6g}", o.isolation_error);
      buf.push_back('\n');
      if (buf.size() >= kFlushBytes) flush_to(stream, buf);
    }
  }
  flush_to(stream, buf);
}

std::string pods_csv(const Scenario& scenario, std::span<const RunResult> runs) {
  std::ostringstream s;
  write_pods_csv(s, scenario, runs);
  return std::move(s).str();
}

void write_timeseries_csv(std::ostream& stream, std::span<const RunResult> runs) {
  fmt::memory_buffer buf;
  auto out = fmt::appender(buf);
  fmt::format_to(
      out, "policy,time_s,allocation_ratio,fragmentation_ratio,sm_utilization,running,pending\n");
  for (const RunResult& r : runs) {
    const std::string policy = csv_field(r.policy);
    for (const Sample& s : r.samples) {
      fmt::format_to(out, "{},{:.9g},{:.9g},{:.9g},{:.9g},{},{}\n", policy, s.time_s,
                     s.allocation_ratio, s.fragmentation_ratio, s.sm_utilization, s.running,
                     s.pending);
      if (buf.size() >= kFlushBytes) flush_to(stream, buf);
    }
  }
  flush_to(stream, buf);
}

std::string timeseries_csv(std::span<const RunResult> runs) {
  std::ostringstream s;
  write_timeseries_csv(s, runs);
  return std::move(s).str();
}

std::string fill_csv(std::span<const RunResult> runs) {
  fmt::memory_buffer buf;
  auto out = fmt::appender(buf);
  fmt::format_to(
      out,
      "policy,pods,arrived_gpus,allocated_gpus,fragmented_gpus,failed_gpus,arrived_ratio,"
      "allocated_ratio,fragmented_ratio,failed_ratio\n");
  for (const RunResult& r : runs) {
    if (!r.summary.fill) continue;
    const std::string policy = csv_field(r.policy);
    const double cap = std::max(r.summary.fill->capacity_gpus, 1.0);
    for (size_t i = 0; i < r.fill_curve.size(); ++i) {
      const FillPoint& p = r.fill_curve[i];
      fmt::format_to(out, "{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g}\n", policy,
                     i + 1, p.arrived, p.allocated, p.fragmented, p.failed, p.arrived / cap,
                     p.allocated / cap, p.fragmented / cap, p.failed / cap);
    }
  }
  return fmt::to_string(buf);
}

std::string fill_table(std::span<const RunResult> runs) {
  std::string out = fmt::format("{:<16}  {:>8}  {:>14}  {:>14}  {:>11}  {:>14}  {:>14}  {:>11}\n",
                                "policy", "arrived", "alloc @100%", "frag @100%", "failed @100%",
                                "alloc @end", "frag @end", "failed @end");
  for (const RunResult& r : runs) {
    if (!r.summary.fill) continue;
    const FillSummary& f = *r.summary.fill;
    auto pct = [](double v) { return fmt::format("{:.1f}%", 100 * v); };
    out += fmt::format("{:<16}  {:>8}  {:>14}  {:>14}  {:>11}  {:>14}  {:>14}  {:>11}\n", r.policy,
                       pct(f.arrived_at_end), pct(f.allocated_at_full), pct(f.fragmented_at_full),
                       pct(f.failed_at_full), pct(f.allocated_at_end), pct(f.fragmented_at_end),
                       pct(f.failed_at_end));
  }
  return out;
}

std::string comparison_table(std::span<const RunResult> runs, bool wide) {
  // Each column with how long it stays in the default table: when the table is wider than
  // kTerminalColumns, the lowest `keep` goes first (0: only in the wide table).
  struct Column {
    std::string head;
    int keep;
    std::vector<std::string> cells;
  };
  std::vector<Column> cols = {
      {"policy", 100, {}},    {"sharing", 90, {}},    {"done", 80, {}},
      {"failed", 80, {}},     {"nbr fail", 0, {}},    {"unplaced", 70, {}},
      {"alloc", 85, {}},      {"SM util", 60, {}},    {"iso err mean/max", 58, {}},
      {"queue p50", 30, {}},  {"queue p99", 75, {}},  {"JCT p50", 35, {}},
      {"JCT p99", 65, {}},    {"slowdn p99", 20, {}}, {"SLO", 55, {}},
      {"GPU-h used", 25, {}}, {"cost $", 50, {}},     {"MIG reconf", 0, {}},
      {"stranded", 57, {}}};
  // Isolation error (mean / max over capped pods) and failures caused by a neighbour: shown
  // only when some run has them, so tables of scenarios without capped modes stay as they were.
  const bool isolation = std::any_of(runs.begin(), runs.end(), [](const RunResult& r) {
    return r.summary.isolation_error.count > 0 || r.summary.neighbour_failures > 0;
  });
  // MIG columns only when some run shares GPUs by MIG.
  const bool mig =
      std::any_of(runs.begin(), runs.end(), [](const RunResult& r) { return r.summary.mig; });
  for (const RunResult& r : runs) {
    const RunSummary& s = r.summary;
    auto pct = [](double v) { return fmt::format("{:.1f}%", 100 * v); };
    auto t = [](const Distribution& d, double v) {
      return d.count ? human_time(v) : std::string("-");
    };
    const Distribution& e = s.isolation_error;
    const auto& m = s.mig;
    const std::vector<std::string> row = {
        r.policy,
        std::string(r.sharing.substr(0, r.sharing.find(' '))),
        fmt::format("{}", s.completed),
        fmt::format("{}", s.failed),
        fmt::format("{}", s.neighbour_failures),
        fmt::format("{}", s.unschedulable + s.pending_at_end),
        pct(s.allocation_ratio),
        pct(s.sm_utilization),
        e.count ? fmt::format("{:.1f}/{:.1f} pt", 100 * e.mean, 100 * e.max) : std::string("-"),
        t(s.queue_delay_s, s.queue_delay_s.p50),
        t(s.queue_delay_s, s.queue_delay_s.p99),
        t(s.jct_s, s.jct_s.p50),
        t(s.jct_s, s.jct_s.p99),
        s.slowdown.count ? fmt::format("{:.2f}", s.slowdown.p99) : "-",
        s.slo_attainment ? pct(*s.slo_attainment) : "-",
        fmt::format("{:.1f}", s.gpu_hours_allocated),
        fmt::format("{:.2f}", s.cost_usd),
        m ? fmt::format("{}", m->reconfigurations) : "-",
        m ? fmt::format("{:.1f}%", 100 * m->stranded_ratio) : "-"};
    for (size_t c = 0; c < cols.size(); ++c) cols[c].cells.push_back(row[c]);
  }
  std::erase_if(cols, [&](const Column& c) {
    if (!isolation && (c.head == "nbr fail" || c.head == "iso err mean/max")) return true;
    if (!mig && (c.head == "MIG reconf" || c.head == "stranded")) return true;
    return false;
  });
  const auto width = [](const Column& c) {
    size_t w = c.head.size();
    for (const auto& cell : c.cells) w = std::max(w, cell.size());
    return w;
  };
  const size_t all = cols.size();
  if (!wide) {
    // A column that says nothing for any policy ("-" throughout) is left out first.
    std::erase_if(cols, [](const Column& c) {
      return c.keep == 0 ||
             (c.keep < 80 && std::all_of(c.cells.begin(), c.cells.end(),
                                         [](const std::string& v) { return v == "-"; }));
    });
    const auto total = [&] {
      size_t w = 0;
      for (const Column& c : cols) w += width(c) + 2;
      return w - 2;
    };
    while (total() > kTerminalColumns && cols.size() > 2) {
      const auto lowest =
          std::min_element(cols.begin() + 2, cols.end(),
                           [](const Column& a, const Column& b) { return a.keep < b.keep; });
      cols.erase(lowest);
    }
  }
  std::string out;
  const auto line = [&](const auto& cell_of) {
    for (size_t c = 0; c < cols.size(); ++c) {
      // Text columns left-aligned, figures right-aligned.
      const size_t w = width(cols[c]);
      out += c < 2 ? fmt::format("{:<{}}", cell_of(c), w) : fmt::format("{:>{}}", cell_of(c), w);
      out += c + 1 < cols.size() ? "  " : "\n";
    }
  };
  line([&](size_t c) { return cols[c].head; });
  line([&](size_t c) { return std::string(width(cols[c]), '-'); });
  for (size_t r = 0; r < runs.size(); ++r) line([&](size_t c) { return cols[c].cells[r]; });
  if (cols.size() < all) out += fmt::format("({} more columns with --wide)\n", all - cols.size());
  return out;
}

namespace {

void write_run_files(const std::filesystem::path& dir, const Scenario& scenario,
                     std::span<const RunResult> runs) {
  std::filesystem::create_directories(dir);
  write_text_file(dir / "summary.json", summary_json(scenario, runs).dump(2) + "\n");
  // Streamed: a million-pod pods.csv is over 100 MB, never held whole in memory.
  write_streamed_file(dir / "pods.csv",
                      [&](std::ostream& out) { write_pods_csv(out, scenario, runs); });
  write_streamed_file(dir / "timeseries.csv",
                      [&](std::ostream& out) { write_timeseries_csv(out, runs); });
  if (std::any_of(runs.begin(), runs.end(),
                  [](const RunResult& r) { return r.summary.fill.has_value(); }))
    write_text_file(dir / "fill.csv", fill_csv(runs));
}

Distribution mean_distribution(std::span<const Distribution* const> ds) {
  Distribution m;
  size_t n = 0;
  for (const Distribution* d : ds) {
    if (d->count == 0) continue;
    ++n;
    m.count += d->count;  // divided by the seeds below, like every other figure
    m.mean += d->mean, m.p50 += d->p50, m.p95 += d->p95, m.p99 += d->p99, m.max += d->max;
  }
  if (n > 0) {
    const double k = static_cast<double>(n);
    m.mean /= k, m.p50 /= k, m.p95 /= k, m.p99 /= k, m.max /= k;
    m.count = static_cast<size_t>(
        std::llround(static_cast<double>(m.count) / static_cast<double>(ds.size())));
  }
  return m;
}

}  // namespace

void write_results(const std::string& dir, const Scenario& scenario,
                   std::span<const RunResult> runs, bool force) {
  write_folder_atomically(
      dir, force, [&](const std::filesystem::path& tmp) { write_run_files(tmp, scenario, runs); });
}

std::vector<RunResult> mean_over_seeds(std::span<const SeedRuns> seeds) {
  std::vector<RunResult> out;
  if (seeds.empty()) return out;
  const size_t policies = seeds.front().runs.size();
  const double k = static_cast<double>(seeds.size());
  for (size_t p = 0; p < policies; ++p) {
    RunResult m;
    const RunResult& first = seeds.front().runs[p];
    m.policy = first.policy;
    m.placement = first.placement;
    m.sharing = first.sharing;
    m.seed = first.seed;
    RunSummary& s = m.summary;
    std::vector<const Distribution*> queue, jct, slowdown, quality, isolation;
    double slo_sum = 0;
    size_t slo_n = 0;
    std::optional<FillSummary> fill;
    for (const SeedRuns& sr : seeds) {
      const RunSummary& r = sr.runs[p].summary;
      s.pods += r.pods, s.completed += r.completed, s.failed += r.failed;
      s.unschedulable += r.unschedulable, s.pending_at_end += r.pending_at_end;
      s.running_at_end += r.running_at_end;
      s.allocation_ratio += r.allocation_ratio / k;
      s.fragmentation_ratio += r.fragmentation_ratio / k;
      s.sm_utilization += r.sm_utilization / k;
      s.memory_utilization += r.memory_utilization / k;
      s.gpu_hours_provisioned += r.gpu_hours_provisioned / k;
      s.gpu_hours_allocated += r.gpu_hours_allocated / k;
      s.cost_usd += r.cost_usd / k;
      s.events += static_cast<uint64_t>(std::llround(static_cast<double>(r.events) / k));
      s.placement_attempts +=
          static_cast<uint64_t>(std::llround(static_cast<double>(r.placement_attempts) / k));
      queue.push_back(&r.queue_delay_s), jct.push_back(&r.jct_s), slowdown.push_back(&r.slowdown);
      quality.push_back(&r.communication_quality);
      isolation.push_back(&r.isolation_error);
      s.neighbour_failures += r.neighbour_failures;
      for (const auto& [reason, n] : r.not_placed_reasons) s.not_placed_reasons[reason] += n;
      if (r.slo_attainment) slo_sum += *r.slo_attainment, ++slo_n;
      if (r.mig) {  // MIG: reconfigurations as a rounded mean below, like the pod counts
        if (!s.mig) s.mig = MigMetrics{};
        s.mig->reconfigurations += r.mig->reconfigurations;
        s.mig->reconfiguration_gpu_s += r.mig->reconfiguration_gpu_s / k;
        s.mig->stranded_ratio += r.mig->stranded_ratio / k;
      }
      if (r.fill) {
        if (!fill) fill = FillSummary{};
        const FillSummary& f = *r.fill;
        fill->capacity_gpus = f.capacity_gpus;
        fill->arrived_at_end += f.arrived_at_end / k;
        fill->allocated_at_full += f.allocated_at_full / k;
        fill->fragmented_at_full += f.fragmented_at_full / k;
        fill->failed_at_full += f.failed_at_full / k;
        fill->allocated_at_end += f.allocated_at_end / k;
        fill->fragmented_at_end += f.fragmented_at_end / k;
        fill->failed_at_end += f.failed_at_end / k;
      }
    }
    // Counts become per-seed means, rounded: the tables show whole pods.
    for (size_t* c : {&s.pods, &s.completed, &s.failed, &s.unschedulable, &s.pending_at_end,
                      &s.running_at_end, &s.neighbour_failures})
      *c = static_cast<size_t>(std::llround(static_cast<double>(*c) / k));
    for (auto& [reason, n] : s.not_placed_reasons)
      n = static_cast<size_t>(std::llround(static_cast<double>(n) / k));
    if (s.mig)
      s.mig->reconfigurations =
          static_cast<size_t>(std::llround(static_cast<double>(s.mig->reconfigurations) / k));
    s.queue_delay_s = mean_distribution(queue);
    s.jct_s = mean_distribution(jct);
    s.slowdown = mean_distribution(slowdown);
    s.communication_quality = mean_distribution(quality);
    s.isolation_error = mean_distribution(isolation);
    if (slo_n > 0) s.slo_attainment = slo_sum / static_cast<double>(slo_n);
    s.fill = fill;
    out.push_back(std::move(m));
  }
  return out;
}

void write_seed_results(const std::string& dir, std::span<const SeedRuns> seeds, bool force) {
  write_folder_atomically(dir, force, [&](const std::filesystem::path& tmp) {
    std::vector<uint64_t> seed_list;
    for (const SeedRuns& sr : seeds) {
      seed_list.push_back(sr.scenario->seed);
      write_run_files(tmp / fmt::format("seed-{}", sr.scenario->seed), *sr.scenario, sr.runs);
    }
    const std::vector<RunResult> mean = mean_over_seeds(seeds);
    nlohmann::ordered_json j = summary_json(*seeds.front().scenario, mean);
    j["format"] = "slicelab.seeds/1";
    j.erase("seed");
    j["seeds"] = seed_list;
    j["note"] = "per policy, the mean over seeds; each seed's full results are in seed-<n>/";
    write_text_file(tmp / "summary.json", j.dump(2) + "\n");
  });
}

}  // namespace slicelab
