#include "cli/plan_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "cli/input_paths.h"
#include "cli/progress_line.h"
#include "cli/usage_error.h"
#include "planning/capacity_planner.h"
#include "planning/plan_spec.h"
#include "reports/atomic_folder.h"
#include "reports/plan_files.h"
#include "sim/parallel/cpu_limit.h"
#include "sim/scenario/replications.h"
#include "sim/scenario/scenario.h"
#include "workloads/input_error.h"

namespace slicelab {
PlanCommand::PlanCommand(CLI::App& app)
    : cmd_(app.add_subcommand(
          "plan", "Find, per policy, the smallest cluster that meets the scenario's targets")),
      jobs_(default_jobs()) {
  cmd_->add_option("scenario", scenario_, "Scenario YAML file (targets in its plan: block)")
      ->required()
      ->check(existing_input_file());
  auto* seed = cmd_->add_option("--seed", seed_, "Size with this one seed only")
                   ->check(CLI::Range(int64_t{0}, INT64_MAX));
  cmd_->add_option("--seeds", seeds_,
                   "Seeds to size over: a count N (N seeds from the scenario's first) or a list "
                   "1,2,3 (default: the scenario's seeds:, else 10 from its seed:)")
      ->excludes(seed);
  cmd_->add_option("--growth", growth_, "Workload growth factor (overrides plan.growth)")
      ->check(CLI::Range(0.01, 1000.0));
  cmd_->add_option("--target", targets_,
                   "A target METRIC<=VALUE or METRIC>=VALUE; replaces the scenario's target on "
                   "that metric (repeatable)")
      ->allow_extra_args(false);  // one per --target, so the scenario is never taken for one
  cmd_->add_option("--min-nodes", min_nodes_, "Smallest node count to try (plan.scale.min)")
      ->check(CLI::Range(1, 1'000'000));
  cmd_->add_option("--max-nodes", max_nodes_, "Largest node count to try (plan.scale.max)")
      ->check(CLI::Range(1, 1'000'000));
  cmd_->add_option("--probes", probes_, "Sizes probed per search round (plan.probes, default 2)")
      ->check(CLI::Range(1, 64));
  cmd_->add_option("--out", out_, "Output folder (default: results/<scenario name>-plan)");
  cmd_->add_option("-j,--jobs", jobs_,
                   "Simulations run in parallel (default: the CPUs this process may use)")
      ->check(CLI::Range(1, 1024));
  cmd_->add_flag("-q,--quiet", quiet_, "Print no table and no progress, only errors");
  add_format_option(*cmd_, format_);
  cmd_->add_flag("--force", force_,
                 "Replace the output folder even if files were added to it (only a folder slicelab "
                 "wrote; docs/results-format.md)");
}

int PlanCommand::run() const {
  std::vector<PlanTarget> targets;
  try {
    for (const auto& t : targets_) targets.push_back(parse_target(t));
  } catch (const InputError& e) {
    throw UsageError(e.what());
  }
  std::optional<SeedsOption> seeds_option;
  if (!seeds_.empty()) {
    std::string why;
    seeds_option = parse_seeds_option(seeds_, why);
    if (!seeds_option) throw UsageError("--seeds: " + why);
  }
  std::optional<uint64_t> seed;
  if (seed_) seed = static_cast<uint64_t>(*seed_);
  const Scenario first = load_scenario(scenario_);
  const std::vector<uint64_t> seeds = replication_seeds(first, seed, seeds_option);
  std::vector<Scenario> scenarios;
  scenarios.reserve(seeds.size());
  // Each seed its own workload, as compare runs them.
  for (const uint64_t s : seeds) scenarios.push_back(load_scenario(scenario_, s));
  const Scenario& sc = scenarios.front();
  PlanSpec spec = read_plan_spec(scenario_, sc);
  if (growth_) spec.growth = *growth_;
  for (const PlanTarget& t : targets) set_target(spec, t);
  if (min_nodes_) spec.min_nodes = *min_nodes_;
  if (max_nodes_) spec.max_nodes = *max_nodes_;
  if (probes_) spec.probes = *probes_;
  check_plan_spec(spec, sc);
  const std::string out =
      out_.empty() ? (std::filesystem::path("results") / (sc.name + "-plan")).string() : out_;
  prepare_output_folder(out, force_);  // a refusal before the search, not after it

  CapacityPlan plan;
  {
    ProgressLine progress(fmt::format("plan {} ({} policies x {}, growth {:g}x)", sc.name,
                                      sc.policies.size(), seeds_text(seeds), spec.growth),
                          sc.policies.size(), quiet_);
    plan =
        plan_capacity(scenarios, spec, jobs_, [&](size_t k, double f) { progress.update(k, f); });
  }
  write_plan(out, plan, force_);
  if (format_.json()) {  // -q silences progress and tables, never the document
    std::printf("%s\n", plan_json(plan).dump(2).c_str());
  } else if (!quiet_) {
    std::fputs(plan_table(plan).c_str(), stdout);
    std::printf("\nwrote %s/{plan.json,plan.md,capacity.csv}\n", out.c_str());
  }
  return 0;
}

}  // namespace slicelab
