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
#include "reports/differing_metrics.h"
#include "reports/jobs_csv.h"
#include "reports/metric_cells.h"
#include "reports/mode_documents.h"
#include "reports/output_values.h"
#include "reports/pods_csv_rows.h"
#include "reports/policy_choice.h"
#include "reports/queues_csv.h"
#include "reports/run_warnings.h"
#include "reports/services_csv.h"
#include "reports/streamed_pods_csv.h"
#include "sim/metrics/class_metrics.h"
#include "sim/metrics/metric_estimate.h"
#include "sim/metrics/run_metrics.h"
#include "sim/metrics/seed_mean.h"
#include "sim/parallel/cpu_limit.h"

namespace slicelab {
namespace {

using ojson = nlohmann::ordered_json;

ojson per_model_json(const RunSummary& s) {
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
  return models;
}

void write_metric(ojson& p, const RunMetric& m, const RunSummary& s);

ojson distribution_json(const Distribution& d) {
  if (d.count == 0)
    return ojson{{"count", 0}, {"mean", nullptr}, {"p50", nullptr}, {"p95", nullptr}};
  return ojson{{"count", d.count},
               {"mean", tidy_value(d.mean)},
               {"p50", tidy_value(d.p50)},
               {"p95", tidy_value(d.p95)}};
}

// One object per queue (docs/results-format.md#per-queue): its quota, what it used and
// borrowed, its fairness and its jobs' waits.
ojson per_queue_json(const RunSummary& s) {
  ojson queues = ojson::array();
  for (const QueueSummary& q : s.queues) {
    ojson e;
    e["queue"] = q.name;
    e["cohort"] = q.cohort;
    e["nominal_gpus"] = tidy_value(q.nominal_gpus);
    e["fair_share"] = tidy_value(q.fair_share);
    e["mean_gpus"] = tidy_value(q.mean_gpus);
    e["gpu_share"] = tidy_value(q.gpu_share);
    e["share_while_waiting"] =
        q.share_while_waiting ? ojson(tidy_value(*q.share_while_waiting)) : ojson(nullptr);
    e["fairness"] = q.share_while_waiting && q.fair_share > 0
                        ? ojson(tidy_value(*q.share_while_waiting / q.fair_share))
                        : ojson(nullptr);
    e["gpu_hours"] = tidy_value(q.usage.gpu_s / 3600.0);
    e["borrowed_gpu_hours"] = tidy_value(q.usage.borrowed_gpu_s / 3600.0);
    e["peak_borrowed_gpus"] = tidy_value(q.usage.peak_borrowed_gpus);
    e["hours_waiting"] = tidy_value(q.usage.waiting_s / 3600.0);
    e["admissions"] = q.usage.admitted;
    e["reclaimed"] = q.usage.reclaimed;
    e["reclaims"] = q.usage.reclaims;
    e["jobs"] = q.jobs;
    e["admitted"] = q.admitted;
    e["started"] = q.started;
    e["completed"] = q.completed;
    e["lost_gpu_hours"] = tidy_value(q.lost_gpu_hours);
    e["admission_wait_s"] = distribution_json(q.admission_wait_s);
    e["queue_delay_s"] = distribution_json(q.queue_delay_s);
    e["jct_s"] = distribution_json(q.jct_s);
    queues.push_back(std::move(e));
  }
  return queues;
}

// One object per service (docs/results-format.md#per-service): its requests and their latency,
// its SLO, replicas and GPU-hours.
ojson per_service_json(const RunSummary& s) {
  ojson services = ojson::array();
  for (const ServiceSummary& v : s.services) {
    ojson e;
    e["service"] = v.name;
    e["requests"] = tidy_value(v.requests);
    e["dropped"] = tidy_value(v.dropped);
    e["unserved"] = tidy_value(v.unserved);
    e["lost"] = tidy_value(v.lost);
    ojson lat = distribution_json(v.latency_s);
    lat["p99"] = v.latency_s.count > 0 ? ojson(tidy_value(v.latency_s.p99)) : ojson(nullptr);
    e["latency_s"] = std::move(lat);
    e["within_slo"] = v.within_slo ? ojson(tidy_value(*v.within_slo)) : ojson(nullptr);
    e["slo_met"] = v.slo_met ? ojson(*v.slo_met) : ojson(nullptr);
    e["replicas_mean"] = tidy_value(v.replicas_mean);
    e["replicas_peak"] = v.replicas_peak;
    e["unplaced_peak"] = v.unplaced_peak;
    e["unplaced_replica_hours"] = tidy_value(v.unplaced_replica_s / 3600.0);
    e["scale_ups"] = v.scale_ups;
    e["scale_downs"] = v.scale_downs;
    e["replica_failures"] = v.replica_failures;
    e["gpu_hours"] = tidy_value(v.gpu_hours);
    const auto per_million = v.gpu_hours_per_million();
    e["gpu_hours_per_million"] = per_million ? ojson(tidy_value(*per_million)) : ojson(nullptr);
    e["outside_checked"] = tidy_value(v.outside_checked);
    services.push_back(std::move(e));
  }
  return services;
}

// One object per class: its name, then its rows at the same keys as the policy's own.
ojson per_class_json(const RunSummary& s) {
  ojson classes = ojson::array();
  for (const ClassSummary& c : s.per_class) {
    ojson e;
    e["class"] = c.workload_class;
    const RunSummary view = class_as_summary(c);
    for (const std::string_view key : class_metric_keys())
      write_metric(e, *find_run_metric(key), view);
    classes.push_back(std::move(e));
  }
  return classes;
}

// Row `m` of the run-metrics table into policy object `p`, at its dotted key (rows come in the
// file's key order, so ordered_json keeps it); derived rows without a key are not written.
void write_metric(ojson& p, const RunMetric& m, const RunSummary& s) {
  if (m.json.empty() || (m.written_if && !m.written_if(s))) return;
  ojson* at = &p;
  std::string_view rest = m.json;
  for (size_t dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
    at = &(*at)[std::string(rest.substr(0, dot))];
    rest.remove_prefix(dot + 1);
  }
  ojson& v = (*at)[std::string(rest)];
  switch (m.block) {
    case MetricBlock::kNotPlacedReasons:
      v = ojson::object();
      for (const auto& [k, n] : s.not_placed_reasons) v[k] = n;
      return;
    case MetricBlock::kPerModel:
      v = per_model_json(s);
      return;
    case MetricBlock::kPerClass:
      v = per_class_json(s);
      return;
    case MetricBlock::kPerQueue:
      v = per_queue_json(s);
      return;
    case MetricBlock::kPerService:
      v = per_service_json(s);
      return;
    case MetricBlock::kNumber:
      break;
  }
  const std::optional<double> x = metric_value(m, s);
  if (!x)
    v = nullptr;
  else if (is_whole(m.unit))
    v = static_cast<uint64_t>(*x);
  else
    v = tidy_value(*x);
}

}  // namespace

ojson summary_json(const Scenario& scenario, std::span<const RunResult> runs) {
  ojson root;
  root["format"] = "slicelab.summary/1";
  root["scenario"] = scenario.name;
  root["seed"] = scenario.seed;
  root["workload"] = {{"source", scenario.workload_source}, {"pods", scenario.workload_pods()}};
  if (!scenario.services.empty()) root["workload"]["services"] = scenario.services.size();
  root["cluster"] = {{"nodes", scenario.cluster.node_count()},
                     {"gpus", scenario.cluster.gpu_count()}};
  // A compare's recommendation (one policy's run has nothing to choose between).
  if (runs.size() > 1 && !scenario.engine.fill) {
    PolicyChoice choice = choose_policy(scenario.decide, runs);
    for (std::string& w : run_warnings(scenario, runs)) choice.warnings.push_back(std::move(w));
    root["decision"] = choice.json(runs);
  }
  ojson policies = ojson::array();
  for (const RunResult& r : runs) {
    const RunSummary& s = r.summary;
    ojson p;
    p["name"] = r.policy;
    p["placement"] = r.placement;
    p["sharing"] = r.sharing;
    for (const RunMetric& m : run_metrics()) write_metric(p, m, s);
    policies.push_back(std::move(p));
  }
  root["policies"] = std::move(policies);
  return root;
}

namespace {

// The other files' rows go to the stream whenever their buffer passes this size.
constexpr size_t kFlushBytes = size_t{1} << 16;

void flush_to(std::ostream& out, fmt::memory_buffer& buf) {
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  buf.clear();
}

}  // namespace

void write_pods_csv(std::ostream& stream, const Scenario& scenario, std::span<const RunResult> runs,
                    int width) {
  const std::string head = pods_csv_header(scenario);
  stream.write(head.data(), static_cast<std::streamsize>(head.size()));
  write_pod_rows(
      [&](std::string_view block) {
        stream.write(block.data(), static_cast<std::streamsize>(block.size()));
      },
      scenario, runs, 0, width);
}

void write_pods_csv(std::ostream& stream, const Scenario& scenario,
                    std::span<const RunResult> runs) {
  write_pods_csv(stream, scenario, runs, default_jobs());
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

namespace {

// "±1.2h": the half width written as the column writes its figures ("" without one).
std::string noise_cell(const RunMetric& m, const SeedSummaries& seeds) {
  if (m.column.format == CellFormat::kPointsMeanMax) return "";
  const std::optional<Estimate> e = metric_estimate(m, seeds);
  if (!e || !e->half_width) return "";
  std::string cell = metric_cell(m, *e->half_width, std::nullopt);
  // A count's interval is rarely whole: one decimal rather than rounding it away.
  if (m.column.format == CellFormat::kInteger && *e->half_width != std::round(*e->half_width))
    cell = fmt::format("{:.1f}", *e->half_width);
  return "±" + cell;
}

}  // namespace

std::string comparison_table(std::span<const RunResult> runs, bool wide,
                             std::span<const SeedSummaries> per_seed) {
  // Over several seeds, a second line per policy holds each figure's 95% interval half width.
  const bool noise = !per_seed.empty() && per_seed.front().size() > 1;
  const size_t lines = noise ? 2 : 1;
  // Each column with how long it stays in the default table: when the table is wider than
  // kTerminalColumns, the lowest `keep` goes first (0: only in the wide table). After the
  // policy and its sharing mode, the run-metrics table's columns (sim/metrics/run_metrics.h).
  struct Column {
    std::string head;
    int keep;
    std::vector<std::string> cells;
  };
  std::vector<Column> cols = {{"policy", 100, {}}, {"sharing", 90, {}}};
  for (const RunMetric* m : column_metrics()) {
    if (m->column.keep == kNeverInTerminal) continue;
    // Columns of a kind of run (capped modes, MIG) only when some run is of that kind, so
    // tables of other scenarios stay as they were.
    if (m->column.shown_if && std::none_of(runs.begin(), runs.end(), [&](const RunResult& r) {
          return m->column.shown_if(r.summary);
        }))
      continue;
    Column c{std::string(m->column.head), m->column.keep, {}};
    for (size_t i = 0; i < runs.size(); ++i) {
      const RunResult& r = runs[i];
      c.cells.push_back(
          metric_cell(*m, [&](const RunMetric& x) { return metric_value(x, r.summary); }) +
          (of_pods_that_ran(*m) && r.summary.failed > 0 ? "*" : ""));
      if (noise) c.cells.push_back(noise_cell(*m, per_seed[i]));
    }
    cols.push_back(std::move(c));
  }
  // Figures without a column that still tell the policies apart (reports/differing_metrics.h).
  for (const RunMetric* m : differing_metrics(
           runs.size(),
           [&](size_t i, const RunMetric&x) { return metric_value(x, runs[i].summary); },
           MetricTable::kTerminal)) {
    Column c{differing_head(*m), 86, {}};
    for (size_t i = 0; i < runs.size(); ++i) {
      c.cells.push_back(differing_cell(*m, metric_value(*m, runs[i].summary)));
      if (noise) c.cells.push_back("");
    }
    cols.push_back(std::move(c));
  }
  for (const RunResult& r : runs) {
    cols[0].cells.push_back(r.policy);
    cols[1].cells.push_back(std::string(r.sharing.substr(0, r.sharing.find(' '))));
    if (noise) {
      cols[0].cells.push_back("");
      cols[1].cells.push_back("± 95% CI");
    }
  }
  // In display columns: "±" is two bytes of UTF-8, and fmt pads by display width.
  const auto columns = [](const std::string& text) {
    return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char ch) {
      return (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
    }));
  };
  const auto width = [&](const Column& c) {
    size_t w = columns(c.head);
    for (const auto& cell : c.cells) w = std::max(w, columns(cell));
    return w;
  };
  const size_t all = cols.size();
  if (!wide) {
    // A column that says nothing for any policy ("-" throughout) is left out first.
    std::erase_if(cols, [](const Column& c) {
      return c.keep == 0 ||
             (c.keep < 80 && std::all_of(c.cells.begin(), c.cells.end(), [](const std::string& v) {
                return v == "-" || v.empty();  // empty: a noise line without an interval
              }));
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
  for (size_t r = 0; r < runs.size() * lines; ++r) line([&](size_t c) { return cols[c].cells[r]; });
  if (cols.size() < all) out += fmt::format("({} more columns with --wide)\n", all - cols.size());
  if (std::any_of(runs.begin(), runs.end(),
                  [](const RunResult& r) { return r.summary.failed > 0; }))
    out += fmt::format("* {}\n", kOfPodsThatRan);
  if (noise)
    out += fmt::format(
        "± the half width of the 95% confidence interval of the mean over {} seeds (Student's "
        "t; blank: no value)\n",
        per_seed.front().size());
  return out;
}

namespace {

void write_run_files(const std::filesystem::path& dir, const Scenario& scenario,
                     std::span<const RunResult> runs, const StreamedPodsCsv* streamed) {
  std::filesystem::create_directories(dir);
  write_text_file(dir / "summary.json", summary_json(scenario, runs).dump(2) + "\n");
  // Streamed: a million-pod pods.csv is over 100 MB, never held whole in memory; mostly written
  // while the runs went on, where it could be.
  if (streamed == nullptr || !streamed->link_to(dir / "pods.csv"))
    write_streamed_file(dir / "pods.csv",
                        [&](std::ostream& out) { write_pods_csv(out, scenario, runs); });
  write_streamed_file(dir / "timeseries.csv",
                      [&](std::ostream& out) { write_timeseries_csv(out, runs); });
  if (std::any_of(runs.begin(), runs.end(),
                  [](const RunResult& r) { return r.summary.fill.has_value(); }))
    write_text_file(dir / "fill.csv", fill_csv(runs));
  if (!scenario.jobs.empty() && has_job_rows(runs))
    write_streamed_file(dir / "jobs.csv", [&](std::ostream& out) {
      write_jobs_csv(out, scenario.jobs, scenario.engine.queues.default_queue, runs);
    });
  if (has_queue_rows(runs))
    write_streamed_file(dir / "queues.csv",
                        [&](std::ostream& out) { write_queues_csv(out, runs); });
  if (has_service_rows(runs))
    write_streamed_file(dir / "services.csv",
                        [&](std::ostream& out) { write_services_csv(out, runs); });
  for (const std::string& file : mode_document_files(runs))
    write_text_file(dir / file, mode_document_json(runs, file).dump(2) + "\n");
}

}  // namespace

void write_results(const std::string& dir, const Scenario& scenario,
                   std::span<const RunResult> runs, bool force, const StreamedPodsCsv* streamed) {
  write_folder_atomically(dir, force, [&](const std::filesystem::path& tmp) {
    write_run_files(tmp, scenario, runs, streamed);
  });
}

std::vector<RunResult> mean_over_seeds(std::span<const SeedRuns> seeds) {
  std::vector<RunResult> out;
  if (seeds.empty()) return out;
  const size_t policies = seeds.front().runs.size();
  for (size_t p = 0; p < policies; ++p) {
    RunResult m;
    const RunResult& first = seeds.front().runs[p];
    m.policy = first.policy;
    m.placement = first.placement;
    m.sharing = first.sharing;
    m.seed = first.seed;
    std::vector<const RunSummary*> per_seed;
    for (const SeedRuns& sr : seeds) per_seed.push_back(&sr.runs[p].summary);
    m.summary = seed_mean(per_seed);
    out.push_back(std::move(m));
  }
  return out;
}

void write_seed_results(const std::string& dir, std::span<const SeedRuns> seeds, bool force) {
  write_folder_atomically(dir, force, [&](const std::filesystem::path& tmp) {
    for (const SeedRuns& sr : seeds) {
      write_run_files(tmp / fmt::format("seed-{}", sr.scenario->seed), *sr.scenario, sr.runs,
                      nullptr);
    }
    write_text_file(tmp / "summary.json", seeds_summary_json(seeds).dump(2) + "\n");
  });
}

std::vector<SeedSummaries> summaries_per_seed(std::span<const SeedRuns> seeds) {
  std::vector<SeedSummaries> out;
  if (seeds.empty()) return out;
  out.resize(seeds.front().runs.size());
  for (const SeedRuns& sr : seeds)
    for (size_t p = 0; p < out.size() && p < sr.runs.size(); ++p)
      out[p].push_back(&sr.runs[p].summary);
  return out;
}

PolicyChoice choose_over_seeds(std::span<const SeedRuns> seeds, std::span<const RunResult> means) {
  const std::vector<SeedSummaries> per_seed = summaries_per_seed(seeds);
  return choose_policy(seeds.front().scenario->decide, means, per_seed);
}

std::vector<std::string> seeds_run_warnings(std::span<const SeedRuns> seeds) {
  std::vector<std::string> out;
  if (seeds.empty() || seeds.front().runs.size() < 2) return out;
  std::vector<std::vector<std::string>> each;
  for (const SeedRuns& sr : seeds) each.push_back(run_warnings(*sr.scenario, sr.runs));
  const std::vector<std::string> identical = identical_decision_warnings(seeds.front().runs);
  for (const std::string& w : each.front()) {
    if (std::find(identical.begin(), identical.end(), w) == identical.end()) {
      out.push_back(w);
      continue;
    }
    const bool everywhere = std::all_of(each.begin(), each.end(), [&](const auto& ws) {
      return std::find(ws.begin(), ws.end(), w) != ws.end();
    });
    if (everywhere) out.push_back(fmt::format("{} (in every one of {} seeds)", w, seeds.size()));
  }
  return out;
}

namespace {

// Per number row with a value in some seed: {n, ci95: [low, high] (null for one), min, max}.
ojson uncertainty_json(const SeedSummaries& seeds) {
  ojson u = ojson::object();
  for (const RunMetric& m : run_metrics()) {
    if (m.json.empty()) continue;
    const std::optional<Estimate> e = metric_estimate(m, seeds);
    if (!e) continue;
    ojson ci = nullptr;
    if (e->half_width) ci = ojson::array({tidy_value(e->low()), tidy_value(e->high())});
    u[std::string(m.json)] = {{"n", e->n},
                              {"ci95", std::move(ci)},
                              {"min", tidy_value(e->min)},
                              {"max", tidy_value(e->max)}};
  }
  return u;
}

}  // namespace

nlohmann::ordered_json seeds_summary_json(std::span<const SeedRuns> seeds) {
  std::vector<uint64_t> seed_list;
  for (const SeedRuns& sr : seeds) seed_list.push_back(sr.scenario->seed);
  const std::vector<RunResult> mean = mean_over_seeds(seeds);
  nlohmann::ordered_json j = summary_json(*seeds.front().scenario, mean);
  j["format"] = "slicelab.seeds/1";
  j.erase("seed");
  j["seeds"] = seed_list;
  j["note"] = "per policy, the mean over seeds; each seed's full results are in seed-<n>/";
  j["uncertainty"] =
      "per policy, per figure: n seeds holding a value, ci95 the 95% confidence interval of "
      "their mean (Student's t, n-1 degrees of freedom; null for one seed), min and max the "
      "seed range";
  if (j.contains("decision")) {
    PolicyChoice choice = choose_over_seeds(seeds, mean);
    for (std::string& w : seeds_run_warnings(seeds)) choice.warnings.push_back(std::move(w));
    j["decision"] = choice.json(mean);
  }
  const std::vector<SeedSummaries> per_seed = summaries_per_seed(seeds);
  for (size_t p = 0; p < per_seed.size(); ++p)
    j["policies"][p]["uncertainty"] = uncertainty_json(per_seed[p]);
  return j;
}

}  // namespace slicelab
