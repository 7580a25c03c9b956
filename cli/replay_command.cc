#include "cli/replay_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "backends/local/gpu_detection.h"
#include "backends/local/local_replay.h"
#include "backends/local/mig_reconfigure.h"
#include "cli/input_paths.h"
#include "cli/kernels_command.h"
#include "cli/tool_paths.h"
#include "cli/usage_error.h"
#include "kernels/kernel_catalog.h"
#include "reports/atomic_folder.h"
#include "reports/output_guard.h"
#include "reports/results_writer.h"
#include "sim/modes/mig/mig_settings.h"

namespace slicelab {

ReplayCommand::ReplayCommand(CLI::App& app) {
  cmd_ =
      app.add_subcommand("replay",
                         "Run a scenario's pods as real processes on this machine's GPUs (exits 3 "
                         "without a GPU)");
  cmd_->add_option("scenario", scenario_, "Scenario YAML file")
      ->required()
      ->check(existing_input_file());
  cmd_->add_option("--backend", backend_, "Where to run (only 'local' so far)")
      ->check(CLI::IsMember({"local"}));
  cmd_->add_option("-p,--policy", policy_, "Policy name (default: the scenario's first)");
  cmd_->add_option("--out", out_, "Results folder (default: results/<scenario>-local)");
  cmd_->add_option("--mechanism", mechanism_,
                   "Override the policy's mechanism: whole-card, time-slice, mps, mig, interposer");
  cmd_->add_option("--time-scale", time_scale_,
                   "Real seconds per scenario second (default 1; 0.01 runs 100x faster)")
      ->check(CLI::PositiveNumber);
  cmd_->add_option("--timeout-factor", timeout_factor_,
                   "Kill a pod after factor x its duration + grace (default 2)")
      ->check(CLI::Range(1.0, 1000.0));
  cmd_->add_option("--timeout-grace", timeout_grace_s_, "Seconds added to the timeout (default 10)")
      ->check(CLI::NonNegativeNumber);
  cmd_->add_option("--kernel-binary", kernel_binary_,
                   "Workload program (default: $SLICELAB_KERNEL_BINARY, then the build's "
                   "slicelab-kernel)");
  cmd_->add_option("--default-kernel", default_kernel_,
                   "Kernel for pods whose class is not a kernel name (default fma)");
  cmd_->add_option("--command", command_,
                   "Shell command each pod runs instead of a kernel ({pod}, {kernel}, {duration})");
  cmd_->add_option("--interposer", interposer_, "libslicelab-interposer.so (default: the build's)");
  cmd_->add_option("--mps-control", mps_control_,
                   "nvidia-cuda-mps-control (default: $SLICELAB_MPS_CONTROL, then PATH)");
  cmd_->add_option("--nvml-library", nvml_library_,
                   "NVML library (default: $SLICELAB_NVML_LIBRARY, then libnvidia-ml.so.1)");
  cmd_->add_flag("--allow-mig-reconfigure", allow_mig_reconfigure_,
                 "MIG: give the GPUs the policy's layout first (destroys their instances; "
                 "without this flag the instances that exist are used as they are)");
  cmd_->add_option("--nvidia-smi", nvidia_smi_,
                   "nvidia-smi for --allow-mig-reconfigure (default: $SLICELAB_NVIDIA_SMI, then "
                   "PATH)");
  cmd_->add_flag("-q,--quiet", quiet_, "Print no table, only errors");
  cmd_->add_flag("--force", force_,
                 "Replace the output folder even if files were added to it (only a folder slicelab "
                 "wrote; docs/results-format.md)");
  cmd_->add_flag("--wide", wide_, "Print every column of the table (default: 120 columns)");
  add_format_option(*cmd_, format_);
}

int ReplayCommand::run() const {
  const Scenario sc = load_scenario(scenario_);
  auto it = policy_.empty() ? sc.policies.begin()
                            : std::find_if(sc.policies.begin(), sc.policies.end(),
                                           [&](const PolicySpec& p) { return p.name == policy_; });
  if (it == sc.policies.end())
    throw std::runtime_error(fmt::format("{}: no policy named '{}'", scenario_, policy_));
  // The command line first: a bad value is a usage error even on a machine without a GPU.
  LocalReplayOptions o;
  if (!mechanism_.empty()) {
    o.mechanism = mechanism_named(mechanism_);
    if (!o.mechanism)
      throw UsageError(fmt::format("--mechanism: unknown mechanism '{}'", mechanism_));
  }
  if (!find_kernel(default_kernel_))
    throw UsageError(fmt::format("--default-kernel: unknown kernel '{}' (known: {})",
                                 default_kernel_, kernel_names()));
  const std::string out =
      out_.empty() ? (std::filesystem::path("results") / (sc.name + "-local")).string() : out_;
  // A refusal before the replay, not after it; the logs' folder is named from the checked path
  // ("--out x/" must not give "x/.pods", a folder inside the results).
  const std::string pods_dir = prepare_output_folder(out, force_).string() + ".pods";
  prepare_output_folder(pods_dir, force_);
  GpuDetection det = detect_gpus(nvml_library_);
  if (!det.ok()) {
    std::fprintf(stderr, "no GPU: %s\n", det.problem.c_str());
    return kExitNoGpu;
  }
  const auto mechanism = o.mechanism ? o.mechanism : mechanism_for_sharing(it->sharing.kind);
  if (allow_mig_reconfigure_ && mechanism == Mechanism::kMig) {
    const std::vector<MigGpuPlan> plans =
        plan_mig_layout(det.gpus, it->sharing.mode_settings<MigSettings>().get());
    for (const std::string& line : apply_mig_plans(plans, find_nvidia_smi(nvidia_smi_)))
      if (!quiet_) std::fprintf(stderr, "MIG: %s\n", line.c_str());
    det = detect_gpus(nvml_library_);  // the new instances, with their UUIDs
    if (!det.ok()) throw std::runtime_error("MIG: after reconfiguring, " + det.problem);
  }
  o.workload_binary = command_.empty() ? default_kernel_binary(kernel_binary_) : "";
  o.default_kernel = default_kernel_;
  o.command = command_;
  o.interposer_library = default_interposer_library(interposer_);
  o.mps_control = mps_control_;
  o.time_scale = time_scale_;
  o.timeout_factor = timeout_factor_;
  o.timeout_grace_s = timeout_grace_s_;
  o.allow_mig_reconfigure = allow_mig_reconfigure_;
  // Pod logs sit beside the results: the results folder is replaced as a whole when written.
  // Their folder follows the results folder's rules: it starts empty and marked (a
  // folder slicelab did not write is refused above), and its marker lists the logs at the end.
  write_folder_atomically(pods_dir, force_, [](const std::filesystem::path&) {});
  o.work_dir = pods_dir;
  const LocalReplay r = [&] {
    try {
      return replay_local(sc, *it, det.gpus, o);
    } catch (...) {  // the logs of a failed replay are still slicelab's: the next run replaces them
      write_results_marker(pods_dir, folder_entries(pods_dir));
      throw;
    }
  }();
  write_results_marker(pods_dir, folder_entries(pods_dir));
  write_results(out, r.local_scenario, {&r.result, 1}, force_);
  if (format_.json()) {  // -q silences progress and tables, never the document
    std::printf("%s\n", summary_json(r.local_scenario, {&r.result, 1}).dump(2).c_str());
  } else if (!quiet_) {
    std::fputs(comparison_table({&r.result, 1}, wide_).c_str(), stdout);
    std::printf("\nwrote %s/{summary.json,pods.csv,timeseries.csv}; pod logs in %s/\n", out.c_str(),
                o.work_dir.c_str());
  }
  return 0;
}

}  // namespace slicelab
