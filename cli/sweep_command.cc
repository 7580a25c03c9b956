#include "cli/sweep_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <optional>

#include "cli/input_paths.h"
#include "cli/progress_line.h"
#include "cli/usage_error.h"
#include "planning/sweep_grid.h"
#include "planning/sweep_runner.h"
#include "reports/atomic_folder.h"
#include "reports/sweep_files.h"
#include "sim/parallel/cpu_limit.h"
#include "sim/scenario/replications.h"
#include "workloads/input_error.h"
#include "workloads/text_file.h"

namespace slicelab {

SweepCommand::SweepCommand(CLI::App& app)
    : sweep_(app.add_subcommand(
          "sweep", "Run a grid of policies x cluster scales x workload scales x seeds")),
      merge_(app.add_subcommand("merge", "Join sweep shards into one result set")),
      jobs_(default_jobs()) {
  sweep_->add_option("sweep", file_, "Sweep YAML file")->required()->check(existing_input_file());
  sweep_->add_option("--shard", shard_,
                     "Run only part I of N (0-based I/N, e.g. $JOB_COMPLETION_INDEX/4)");
  sweep_->add_option("--seeds", seeds_,
                     "Replace the grid's seeds: a count N (N seeds from the sweep's first) or a "
                     "list 1,2,3");
  sweep_->add_option("--out", out_,
                     "Output folder (default: results/<sweep name>-sweep, or "
                     "results/<sweep name>-sweep-shard-I-of-N)");
  sweep_
      ->add_option("-j,--jobs", jobs_, "Runs in parallel (default: the CPUs this process may use)")
      ->check(CLI::Range(1, 1024));
  sweep_->add_flag("-q,--quiet", quiet_, "Print no progress, only errors");
  for (CLI::App* c : {sweep_, merge_})
    c->add_flag("--force", force_,
                "Replace the output folder even if files were added to it (only a folder slicelab "
                "wrote; docs/results-format.md)");
  merge_->add_option("shards", shards_, "Shard output folders")
      ->required()
      ->check(existing_input_folder());
  merge_->add_option("-o,--out", merge_out_, "Merged output folder")->required();
  for (CLI::App* c : {sweep_, merge_}) add_format_option(*c, format_);
}

int SweepCommand::run() const {
  return sweep_->parsed() ? run_sweep_cmd() : run_merge_cmd();
}

int SweepCommand::run_sweep_cmd() const {
  Shard shard;
  std::optional<SeedsOption> seeds;
  try {
    if (!shard_.empty()) shard = parse_shard(shard_);
  } catch (const InputError& e) {
    throw UsageError(e.what());
  }
  if (!seeds_.empty()) {
    std::string why;
    seeds = parse_seeds_option(seeds_, why);
    if (!seeds) throw UsageError("--seeds: " + why);
  }
  SweepSpec spec = read_sweep_spec(file_);
  if (seeds) override_sweep_seeds(spec, *seeds);
  const std::vector<size_t> indices = shard_indices(spec.size(), shard);
  std::string out = out_;
  if (out.empty())
    out = (std::filesystem::path("results") /
           (shard.count == 1
                ? spec.name + "-sweep"
                : fmt::format("{}-sweep-shard-{}-of-{}", spec.name, shard.index, shard.count)))
              .string();
  prepare_output_folder(out, force_);  // a refusal before the runs, not after them
  std::vector<SweepRow> rows;
  {
    ProgressLine progress(shard.count == 1
                              ? fmt::format("sweep {} ({} runs)", spec.name, indices.size())
                              : fmt::format("sweep {} shard {}/{} ({} of {} runs)", spec.name,
                                            shard.index, shard.count, indices.size(), spec.size()),
                          std::max<size_t>(indices.size(), 1), quiet_);
    rows = run_sweep(spec, indices, jobs_, [&](size_t k, double f) { progress.update(k, f); });
  }
  const size_t n = rows.size();
  write_sweep(out, spec, shard, std::move(rows), force_);
  if (format_.json())  // -q silences progress, never the document asked for
    std::fputs(
        read_text_file((std::filesystem::path(out) / "sweep.json").string(), kMaxJsonBytes).c_str(),
        stdout);
  else if (!quiet_)
    std::printf("%zu of %zu grid points; wrote %s/{sweep.csv,sweep.json}\n", n, spec.size(),
                out.c_str());
  return 0;
}

int SweepCommand::run_merge_cmd() const {
  const size_t n = merge_sweeps(shards_, merge_out_, force_);
  if (format_.json()) {
    std::fputs(
        read_text_file((std::filesystem::path(merge_out_) / "sweep.json").string(), kMaxJsonBytes)
            .c_str(),
        stdout);
    return 0;
  }
  std::printf("merged %zu shards, %zu grid points; wrote %s/{sweep.csv,sweep.json}\n",
              shards_.size(), n, merge_out_.c_str());
  return 0;
}

}  // namespace slicelab
