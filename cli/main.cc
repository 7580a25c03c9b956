// The slicelab command: validate a scenario, run one policy, or compare all of them.
// Library errors arrive here as exceptions and leave as one message and exit code 1; a command
// line that does not parse (unknown option, missing argument, bad value) exits with 2.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <new>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/calibrate_command.h"
#include "cli/cdi_command.h"
#include "cli/diff_command.h"
#include "cli/explain_command.h"
#include "cli/export_command.h"
#include "cli/help_command.h"
#include "cli/import_command.h"
#include "cli/input_paths.h"
#include "cli/interposer_stats.h"
#include "cli/kernels_command.h"
#include "cli/measured_comparison.h"
#include "cli/out_of_memory.h"
#include "cli/output_format.h"
#include "cli/plan_command.h"
#include "cli/plugins_command.h"
#include "cli/progress_line.h"
#include "cli/record_command.h"
#include "cli/replay_command.h"
#include "cli/report_command.h"
#include "cli/serve_command.h"
#include "cli/sweep_command.h"
#include "cli/usage_error.h"
#include "reports/atomic_folder.h"
#include "reports/mode_documents.h"
#include "reports/per_class_table.h"
#include "reports/per_queue_table.h"
#include "reports/per_service_table.h"
#include "reports/policy_choice.h"
#include "reports/results_writer.h"
#include "reports/run_warnings.h"
#include "reports/streamed_pods_csv.h"
#include "sim/parallel/cpu_limit.h"
#include "sim/scenario/replications.h"
#include "sim/scenario/run_policies.h"
#include "sim/scenario/scenario.h"
#include "workloads/input_error.h"
#include "workloads/text_file.h"
#include "workloads/trace_summary.h"

namespace slicelab {
namespace {

struct Common {
  std::string scenario;
  std::optional<int64_t> seed;       // signed so that "-1" is refused, not wrapped around
  std::optional<SeedsOption> seeds;  // --seeds N or --seeds 1,2,3
  std::string out;
  bool quiet = false;
  bool report = false;  // --report: write report.md/report.html after the results
  bool force = false;   // --force: replace a results folder even with files added to it
  bool wide = false;    // --wide: every column of the table, not only those that fit 120
  OutputFormat format;  // --format json: summary.json's document instead of the table
};

std::optional<uint64_t> seed_of(const Common& c) {
  if (!c.seed) return std::nullopt;
  return static_cast<uint64_t>(*c.seed);
}

void add_common(CLI::App& cmd, Common& c, bool writes) {
  cmd.add_option("scenario", c.scenario, "Scenario YAML file")
      ->required()
      ->check(existing_input_file());
  cmd.add_option("--seed", c.seed,
                 "Override the scenario's seed (a run is a pure function of scenario and seed)")
      // CLI11 reads a number beyond int64 as INT64_MAX, silently running another seed than
      // the one asked for: check the text itself, before that conversion.
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            int64_t v = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (ec == std::errc() && end == text.data() + text.size() && v >= 0) return "";
            return fmt::format("expected an integer in 0..{}, found '{}'", INT64_MAX, text);
          },
          "INT in [0 - 9223372036854775807]", "seed"));
  if (writes) {
    cmd.add_option_function<std::string>(
           "--seeds",
           [&c](const std::string& text) {
             std::string why;
             c.seeds = parse_seeds_option(text, why);
             if (!c.seeds) throw CLI::ValidationError("--seeds", why);
           },
           fmt::format("Replications: a count N (N seeds from the scenario's first) or a list "
                       "1,2,3 (default: the scenario's seeds:, else {} seeds from its seed:)",
                       kDefaultReplications))
        ->type_name("N|LIST");
    cmd.add_option("--out", c.out, "Results folder (default: results/<scenario name>)");
    cmd.add_flag("-q,--quiet", c.quiet, "Print no table and no progress, only errors");
    cmd.add_flag("--wide", c.wide, "Print every column of the table (default: 120 columns)");
    add_format_option(cmd, c.format);
    cmd.add_flag("--report", c.report,
                 "Also write report.md and report.html into the results folder");
    cmd.add_flag("--force", c.force,
                 "Replace the results folder even if files were added to it (only a folder "
                 "slicelab wrote; docs/results-format.md)");
  }
}

// `text` broken at spaces into lines of at most `width` characters (a longer word stays whole).
std::string wrapped(const std::string& text, size_t width) {
  std::string out, line;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return out + line;
}

// The recommendation heads a compare's output; the policies that lost pods are named under the
// table. A fill experiment (no departures) and a single policy have nothing to decide.
void print_choice(const PolicyChoice& choice) {
  std::printf("%s\n%s\n\n", wrapped(choice.text, kTerminalColumns).c_str(),
              wrapped(choice.basis + ".", kTerminalColumns).c_str());
}

void print_decision_head(const Scenario& sc, std::span<const RunResult> runs) {
  if (runs.size() < 2 || sc.engine.fill) return;
  print_choice(choose_policy(sc.decide, runs));
}

// `figures`: the warnings about the figures (reports/run_warnings.h), after the lost pods.
void print_decision_warnings(const Scenario& sc, std::span<const RunResult> runs,
                             const std::vector<std::string>& figures) {
  if (sc.engine.fill) return;
  for (const RunResult& r : runs)
    if (const std::string w = lost_pods_warning(r.policy, r.summary); !w.empty())
      std::printf("warning: %s\n", w.c_str());
  for (const std::string& w : figures) std::printf("warning: %s\n", w.c_str());
}

int run_and_report(const Scenario& sc, const std::vector<size_t>& which, int jobs,
                   const Common& c) {
  const std::string out =
      c.out.empty() ? (std::filesystem::path("results") / sc.name).string() : c.out;
  // A refusal before the run, not after it.
  const std::filesystem::path target = prepare_output_folder(out, c.force);
  // The first policy's pods.csv rows are written while it runs, on the core a single run
  // leaves idle (docs/performance.md).
  std::optional<StreamedPodsCsv> pods_csv;
  if (!which.empty()) pods_csv.emplace(target.parent_path(), sc, sc.policies[which.front()].name);
  std::vector<RunResult> results;
  {
    ProgressLine progress(fmt::format("{} ({} pods)", sc.name, sc.workload_pods()), which.size(),
                          c.quiet);
    results = run_policies(
        sc, which, jobs, [&](size_t k, double f) { progress.update(k, f); },
        pods_csv ? pods_csv->feed() : nullptr);
  }
  if (pods_csv) pods_csv->finish(results);
  write_results(out, sc, results, c.force, pods_csv ? &*pods_csv : nullptr);
  if (c.format.json()) {  // -q silences progress and tables, never the document asked for
    std::printf("%s\n", summary_json(sc, results).dump(2).c_str());
  } else if (!c.quiet) {
    print_decision_head(sc, results);
    // A fill experiment has no departures, so JCT and queueing say nothing: show its curve's
    // figures instead.
    std::fputs((sc.engine.fill ? fill_table(results) : comparison_table(results, c.wide)).c_str(),
               stdout);
    if (c.wide) std::fputs(per_class_table(results).c_str(), stdout);
    std::fputs(per_queue_table(results).c_str(), stdout);
    std::fputs(per_service_table(results).c_str(), stdout);
    print_decision_warnings(
        sc, results, results.size() > 1 ? run_warnings(sc, results) : std::vector<std::string>{});
    std::string extra = sc.services.empty() ? "" : ",services.csv";
    for (const std::string& file : mode_document_files(results)) extra += "," + file;
    std::printf(
        "\nwrote %s/{summary.json,pods.csv,timeseries.csv%s%s%s}\n", out.c_str(),
        sc.engine.fill ? ",fill.csv" : "",
        sc.jobs.empty() ? "" : (sc.engine.queues.empty() ? ",jobs.csv" : ",jobs.csv,queues.csv"),
        extra.c_str());
  }
  if (c.report) write_report_and_say(out, c.quiet || c.format.json());
  return 0;
}

// Every policy of `which` once per seed (each seed has its own workload when the workload is
// sampled, and every policy sees the same one: common random numbers); the table shows the mean
// over seeds and each figure's 95% interval.
int run_seeds_and_report(const Common& c, const Scenario& first, const std::vector<uint64_t>& list,
                         const std::vector<size_t>& which, int jobs) {
  const std::string out =
      c.out.empty() ? (std::filesystem::path("results") / first.name).string() : c.out;
  prepare_output_folder(out, c.force);  // a refusal before the run, not after it
  std::vector<Scenario> scenarios;
  scenarios.reserve(list.size());
  // The scenario already loaded is the first seed's (the default list starts at its seed): a
  // copy is cheaper than reading and generating the workload again.
  for (const uint64_t seed : list)
    scenarios.push_back(seed == first.seed ? first : load_scenario(c.scenario, seed));
  std::vector<SeedRuns> seeds;
  seeds.reserve(list.size());
  {
    ProgressLine progress(fmt::format("{} ({} x {} {})", first.name, seeds_text(list), which.size(),
                                      which.size() == 1 ? "policy" : "policies"),
                          scenarios.size() * which.size(), c.quiet);
    for (size_t s = 0; s < scenarios.size(); ++s) {
      const size_t base = s * which.size();
      seeds.push_back(
          {&scenarios[s], run_policies(scenarios[s], which, jobs,
                                       [&](size_t k, double f) { progress.update(base + k, f); })});
    }
  }
  write_seed_results(out, seeds, c.force);
  if (c.format.json()) {
    std::printf("%s\n", seeds_summary_json(seeds).dump(2).c_str());
  } else if (!c.quiet) {
    const std::vector<RunResult> mean = mean_over_seeds(seeds);
    if (mean.size() > 1 && !first.engine.fill) print_choice(choose_over_seeds(seeds, mean));
    std::printf("mean over %s\n", seeds_text(list).c_str());
    const std::vector<SeedSummaries> per_seed = summaries_per_seed(seeds);
    std::fputs(
        (first.engine.fill ? fill_table(mean) : comparison_table(mean, c.wide, per_seed)).c_str(),
        stdout);
    if (c.wide) std::fputs(per_class_table(mean).c_str(), stdout);
    std::fputs(per_queue_table(mean).c_str(), stdout);
    std::fputs(per_service_table(mean).c_str(), stdout);
    print_decision_warnings(first, mean, seeds_run_warnings(seeds));
    std::printf(
        "\nwrote %s/{summary.json,seed-<n>/}: the means with their intervals, and each "
        "seed's results\n",
        out.c_str());
  }
  if (c.report) write_report_and_say(out, c.quiet || c.format.json());
  return 0;
}

// One seed: a plain results folder, as before replications; several: seed-<n>/ and the means.
int run_replicated(const Common& c, const Scenario& sc, const std::vector<size_t>& which,
                   int jobs) {
  if (c.seed && c.seeds)
    throw UsageError("--seed and --seeds are alternatives: give one (--seeds 7,8 or --seed 7)");
  const std::vector<uint64_t> list = replication_seeds(sc, seed_of(c), c.seeds);
  if (list.size() > 1) return run_seeds_and_report(c, sc, list, which, jobs);
  if (list.front() == sc.seed) return run_and_report(sc, which, jobs, c);
  return run_and_report(load_scenario(c.scenario, list.front()), which, jobs, c);
}

int cmd_validate(const Common& c) {
  const Scenario sc = load_scenario(c.scenario, seed_of(c));
  std::printf("%s: OK: %zu node groups (%zu nodes, %zu GPUs), %zu pods (%s)%s, %zu policies\n",
              c.scenario.c_str(), sc.cluster.groups.size(), sc.cluster.node_count(),
              sc.cluster.gpu_count(), sc.workload_pods(), sc.workload_source.c_str(),
              sc.services.empty()
                  ? ""
                  : fmt::format(", {} services (up to {} replicas)", sc.services.size(),
                                sc.pods.size() - sc.workload_pods())
                        .c_str(),
              sc.policies.size());
  TraceSummary summary;
  summary.add_pods(std::span<const PodSpec>(sc.pods).first(sc.workload_pods()));
  for (const auto& g : sc.cluster.groups)
    summary.add_nodes(static_cast<size_t>(g.count), g.gpus_per_node,
                      sc.catalog.models()[g.gpu_model].name);
  std::fputs(summary.text().c_str(), stdout);
  return 0;
}

int cmd_run(const Common& c, const std::string& policy, int jobs) {
  const Scenario sc = load_scenario(c.scenario, seed_of(c));
  size_t idx = 0;
  if (!policy.empty()) {
    auto it = std::find_if(sc.policies.begin(), sc.policies.end(),
                           [&](const PolicySpec& p) { return p.name == policy; });
    if (it == sc.policies.end()) {
      std::vector<std::string> names;
      for (const auto& p : sc.policies) names.push_back(p.name);
      throw InputError(fmt::format("{}: no policy named '{}' (the scenario has: {})", c.scenario,
                                   policy, fmt::join(names, ", ")));
    }
    idx = static_cast<size_t>(it - sc.policies.begin());
  }
  return run_replicated(c, sc, {idx}, jobs);
}

int cmd_compare(const Common& c, int jobs) {
  const Scenario sc = load_scenario(c.scenario, seed_of(c));
  std::vector<size_t> all(sc.policies.size());
  std::iota(all.begin(), all.end(), size_t{0});
  return run_replicated(c, sc, all, jobs);
}

}  // namespace
}  // namespace slicelab

namespace {

constexpr int kExitUsage = 2;

int run_cli(int argc, char** argv) {
  using namespace slicelab;
  CLI::App app{"slicelab: compare GPU sharing and placement policies on your own traces"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "slicelab 0.1.0");

  Common validate_opts, run_opts, compare_opts;
  std::string policy;
  int jobs = default_jobs();

  auto* validate = app.add_subcommand("validate", "Check a scenario and say what it holds");
  add_common(*validate, validate_opts, false);
  auto* run = app.add_subcommand("run", "Run one policy of a scenario");
  add_common(*run, run_opts, true);
  run->add_option("-p,--policy", policy, "Policy name (default: the scenario's first)");
  auto* compare = app.add_subcommand(
      "compare", "Run every policy of a scenario on the same workload and compare");
  add_common(*compare, compare_opts, true);
  compare
      ->add_option("-j,--jobs", jobs,
                   "Policies run in parallel (default: the CPUs this process may use)")
      ->check(CLI::Range(1, 1024));
  std::string measured;
  compare
      ->add_option("--measured", measured,
                   "A measured results folder (slicelab replay): print simulated vs measured")
      ->check(existing_input_folder());

  const ImportCommand import_cmd(app);
  const InterposerCommand interposer_cmd(app);
  const KernelsCommand kernels_cmd(app);
  const ReplayCommand replay_cmd(app);
  const PlanCommand plan_cmd(app);
  const SweepCommand sweep_cmd(app);
  const CalibrateCommand calibrate_cmd(app);
  const ReportCommand report_cmd(app);
  const PluginsCommand plugins_cmd(app);
  const DiffCommand diff_cmd(app);
  const ExplainCommand explain_cmd(app);
  const ExportCommand export_cmd(app);
  const ServeCommand serve_cmd(app);
  const RecordCommand record_cmd(app);
  const CdiCommand cdi_cmd(app);
  const HelpCommand help_cmd(app);

  if (HelpCommand::asked(argc, argv)) {
    try {
      return help_cmd.run(app, argc, argv);
    } catch (const UsageError& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return kExitUsage;
    }
  }
  if (const auto unknown = unknown_command(app, argc, argv)) {
    std::fprintf(stderr, "error: %s\n", unknown->c_str());
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive here too, with exit code 0; every real parse error is a
    // usage error (2), told apart from a bad input or a failed run (1).
    return app.exit(e) == 0 ? 0 : kExitUsage;
  } catch (const InputError& e) {
    // An input file or folder named on the command line is missing (cli/input_paths.h): bad
    // input, 1. CLI11 runs such checks before it looks at --help, which still wins.
    if (help_requested(app)) {
      std::fputs(app.help().c_str(), stdout);
      return 0;
    }
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  // Named now: when memory runs out, building a name could fail too.
  std::string doing = "slicelab";
  for (const CLI::App* sub = &app; !sub->get_subcommands().empty();) {
    sub = sub->get_subcommands().front();
    doing += " " + sub->get_name();
  }
  set_out_of_memory_command(doing);
  try {
    if (import_cmd.chosen()) return import_cmd.run();
    if (interposer_cmd.chosen()) return interposer_cmd.run();
    if (kernels_cmd.chosen()) return kernels_cmd.run();
    if (replay_cmd.chosen()) return replay_cmd.run();
    if (*compare && !measured.empty())
      return compare_with_measured(compare_opts.scenario, measured, jobs,
                                   compare_opts.format.json());
    if (plan_cmd.chosen()) return plan_cmd.run();
    if (sweep_cmd.chosen()) return sweep_cmd.run();
    if (calibrate_cmd.chosen()) return calibrate_cmd.run();
    if (report_cmd.chosen()) return report_cmd.run();
    if (plugins_cmd.chosen()) return plugins_cmd.run();
    if (diff_cmd.chosen()) return diff_cmd.run();
    if (explain_cmd.chosen()) return explain_cmd.run();
    if (export_cmd.chosen()) return export_cmd.run();
    if (serve_cmd.chosen()) return serve_cmd.run();
    if (record_cmd.chosen()) return record_cmd.run();
    if (cdi_cmd.chosen()) return cdi_cmd.run();
    if (*validate) return cmd_validate(validate_opts);
    if (*run) return cmd_run(run_opts, policy, jobs);
    if (*compare) return cmd_compare(compare_opts, jobs);
  } catch (const std::filesystem::filesystem_error& e) {
    // The path first, as in every other message, not "filesystem error: …: reason [path]".
    std::fprintf(stderr, "error: %s\n", filesystem_error_message(e).c_str());
    return 1;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    print_out_of_memory();  // what the work held is freed by now
    return 1;
  } catch (const std::exception& e) {  // InputError included: its message is already located
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Enough for the destructors that run while an out-of-memory error unwinds (a stack of
  // pointers per nlohmann value freed; 64 MiB covers a document of millions of values).
  slicelab::install_out_of_memory_handling(size_t{64} << 20);
  try {
    return run_cli(argc, argv);
  } catch (...) {
    std::fputs("error: unexpected failure\n", stderr);
    return 1;
  }
}
