#include "cli/kernels_command.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "backends/local/gpu_detection.h"
#include "backends/local/private_folder.h"
#include "cli/input_paths.h"
#include "cli/tool_paths.h"
#include "cli/usage_error.h"
#include "kernel_harness/colocation_experiment.h"
#include "kernel_harness/isolation_experiment.h"
#include "kernel_harness/overhead_experiment.h"
#include "kernels/kernel_catalog.h"
#include "reports/atomic_folder.h"
#include "reports/gpu_check_report.h"
#include "reports/output_file.h"

namespace slicelab {
namespace {

void write_out(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::fputs(text.c_str(), stdout);
    return;
  }
  write_output_file(path, text);
  std::fprintf(stderr, "wrote %s\n", path.c_str());
}

std::vector<Mechanism> mechanisms_of(const std::vector<std::string>& names,
                                     std::vector<Mechanism> dflt) {
  if (names.empty()) return dflt;
  std::vector<Mechanism> out;
  for (const std::string& n : names) {
    const auto m = mechanism_named(n);
    if (!m)
      throw UsageError(fmt::format(
          "unknown mechanism '{}' (known: whole-card, time-slice, mps, mig, interposer)", n));
    out.push_back(*m);
  }
  return out;
}

// "0.5:0.25" -> {0.5, 0.25}; each share in (0, 1].
std::pair<double, double> cap_pair(const std::string& text) {
  const auto share = [&](std::string_view v) {
    double d = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
    if (ec != std::errc{} || end != v.data() + v.size() || !(d > 0 && d <= 1))
      throw UsageError(fmt::format("--caps: '{}' is not cap_a:cap_b (shares in (0, 1])", text));
    return d;
  };
  const auto colon = text.find(':');
  if (colon == std::string::npos)
    throw UsageError(fmt::format("--caps: '{}' is not cap_a:cap_b (shares in (0, 1])", text));
  const std::string_view t = text;
  return {share(t.substr(0, colon)), share(t.substr(colon + 1))};
}

}  // namespace

KernelsCommand::KernelsCommand(CLI::App& app) {
  cmd_ = app.add_subcommand("kernels",
                            "Run the CUDA micro-kernels: interposer overhead, isolation fidelity, "
                            "co-location slowdown (needs a GPU; exits 3 without one)");
  cmd_->require_subcommand(1);
  auto common = [&](CLI::App* c) {
    c->add_option("--kernel-binary", kernel_binary_,
                  "slicelab-kernel to run (default: $SLICELAB_KERNEL_BINARY, then the build's)");
    c->add_option("--interposer", interposer_,
                  "libslicelab-interposer.so (default: $SLICELAB_INTERPOSER, then the build's)");
    c->add_option("--mps-control", mps_control_,
                  "nvidia-cuda-mps-control (default: $SLICELAB_MPS_CONTROL, then PATH)");
    c->add_option("--mps-dir", mps_dir_,
                  "A running MPS daemon's folder (DIR/pipe, DIR/log) to use; none is started or "
                  "stopped (default: a private daemon per measurement)");
    c->add_option("--nvml-library", nvml_library_,
                  "NVML library (default: $SLICELAB_NVML_LIBRARY, then libnvidia-ml.so.1)");
    c->add_option("--gpu", gpu_, "NVML index of the GPU to measure on (default 0)");
    c->add_option(
        "--work-dir", work_dir_,
        "Folder in which a fresh folder holds the clients' logs (default: the temp folder)");
    c->add_option("-o,--out", out_, "Output file (default: standard output)");
  };
  overhead_ = cmd_->add_subcommand(
      "overhead", "Each kernel solo, without and with the interposer preloaded (JSON)");
  common(overhead_);
  overhead_->add_option("--kernels", kernels_, "Kernels to run (default: all)")->delimiter(',');
  overhead_->add_option("--repetitions", repetitions_, "Runs of each variant (default 7)")
      ->check(CLI::Range(1, 1000));
  overhead_->add_option("--units", units_, "Units per run (default: per kernel, about 1 s)")
      ->check(CLI::Range(1L, 100000000L));

  isolation_ = cmd_->add_subcommand(
      "isolation", "N co-located clients per mechanism: achieved vs configured share (JSON)");
  common(isolation_);
  isolation_->add_option("--kernel", kernel_, "Kernel every client runs (default fma)");
  isolation_
      ->add_option("--scale", scale_,
                   "fma only: each unit does F times the work (short and long kernels; default 1)")
      ->check(CLI::Range(1.0 / 4096, 1e5));
  isolation_->add_option("--shares", shares_, "One client per share, e.g. 0.3,0.7")
      ->delimiter(',')
      ->check(CLI::Range(0.01, 1.0));
  isolation_
      ->add_option("--mechanisms", mechanisms_,
                   "Subset of interposer,mps,time-slice,mig (default: all)")
      ->delimiter(',');
  isolation_->add_option("--duration", duration_s_, "Seconds each client runs (default 5)")
      ->check(CLI::Range(0.01, 3600.0));
  isolation_->add_flag("--no-memory-test", no_memory_test_,
                       "Skip the over-the-cap allocation test");

  colocation_ = cmd_->add_subcommand(
      "colocation", "Pairs of kernels together per mode: slowdowns as the calibrate CSV");
  common(colocation_);
  colocation_
      ->add_option("--kernels", kernels_, "Classes to pair (default fma,triad,inference-mix)")
      ->delimiter(',');
  colocation_
      ->add_option("--modes", mechanisms_,
                   "Subset of time-slice,mps,interposer,whole-card,mig (default: all)")
      ->delimiter(',');
  colocation_->add_option("--caps", caps_, "cap_a:cap_b pairs for mps and interposer (0.5:0.5)")
      ->delimiter(',');
  colocation_->add_option("--duration", duration_s_, "Seconds each run lasts (default 5)")
      ->check(CLI::Range(0.01, 3600.0));
  add_format_option(*colocation_, format_);

  list_ = cmd_->add_subcommand("list", "The kernels: name, unit of work, bytes and flops per unit");
  add_format_option(*list_, format_);

  report_ = cmd_->add_subcommand(
      "report",
      "scripts/gpu-check's raw folder as a report folder: JSON per figure and summary.md (no "
      "GPU needed)");
  report_->add_option("raw", raw_, "The raw folder scripts/gpu-check's steps wrote")
      ->required()
      ->check(existing_input_folder());
  report_->add_option("-o,--out", out_, "Report folder to write")->required();
  report_->add_flag("--force", force_,
                    "Replace the report folder even if files were added to it (only a folder "
                    "slicelab wrote; docs/results-format.md)");
}

int KernelsCommand::run() const {
  if (list_->parsed() && format_.json()) {
    nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
    for (const KernelInfo& k : kernel_catalog())
      kernels.push_back({{"name", k.name},
                         {"description", k.description},
                         {"unit", k.work_unit},
                         {"bytes_per_unit", k.bytes_per_unit},
                         {"flops_per_unit", k.flops_per_unit}});
    nlohmann::ordered_json j;
    j["format"] = "slicelab.kernels/1";
    j["kernels"] = std::move(kernels);
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  if (report_->parsed()) {
    GpuCheckReport report;
    write_folder_atomically(out_, force_, [&](const std::filesystem::path& tmp) {
      report = write_gpu_check_report(raw_, tmp);
    });
    std::printf(
        "wrote %s/{summary.md,<figure>.json,logs/}: %zu figures measured, %zu not (see "
        "summary.md)\n",
        out_.c_str(), report.measured, report.not_measured);
    for (const std::string& u : report.unparsed)
      std::fprintf(stderr, "error: unparsed figure %s\n", u.c_str());
    return report.unparsed.empty() ? 0 : 1;
  }
  if (list_->parsed()) {
    for (const KernelInfo& k : kernel_catalog())
      std::printf("%-14s %s\n  unit: %s; %.6g bytes, %.6g flops per unit\n",
                  std::string(k.name).c_str(), std::string(k.description).c_str(),
                  std::string(k.work_unit).c_str(), k.bytes_per_unit, k.flops_per_unit);
    return 0;
  }
  // The command line first: a bad value is a usage error even on a machine without a GPU.
  for (const std::string& k : kernels_)
    if (!find_kernel(k))
      throw UsageError(
          fmt::format("--kernels: unknown kernel '{}' (known: {})", k, kernel_names()));
  if (isolation_->parsed() && !find_kernel(kernel_))
    throw UsageError(
        fmt::format("--kernel: unknown kernel '{}' (known: {})", kernel_, kernel_names()));
  if (isolation_->parsed() && scale_ != 1 && kernel_ != "fma")
    throw UsageError(fmt::format("--scale applies to --kernel fma only, not '{}'", kernel_));
  std::vector<std::pair<double, double>> caps;
  for (const std::string& c : caps_) caps.push_back(cap_pair(c));
  const std::vector<Mechanism> chosen = mechanisms_of(mechanisms_, {});
  const GpuDetection det = detect_gpus(nvml_library_);
  if (!det.ok()) {
    std::fprintf(stderr, "no GPU: %s\n", det.problem.c_str());
    return kExitNoGpu;
  }
  const DetectedGpu* gpu = nullptr;
  for (const DetectedGpu& g : det.gpus)
    if (g.index == gpu_) gpu = &g;
  if (!gpu) throw std::runtime_error(fmt::format("--gpu {}: no such GPU", gpu_));
  HarnessTools tools;
  tools.kernel_binary = default_kernel_binary(kernel_binary_);
  if (tools.kernel_binary.empty())
    throw std::runtime_error(
        "slicelab-kernel was not found: it is built only where nvcc exists (give "
        "--kernel-binary or set SLICELAB_KERNEL_BINARY)");
  tools.interposer_library = default_interposer_library(interposer_);
  tools.mps_control = mps_control_;
  if (!mps_dir_.empty()) tools.mps_dir = std::filesystem::absolute(mps_dir_).string();
  // A fresh folder of our own for the clients' logs and interposer regions, inside --work-dir
  // (or the temp folder): nothing already there is truncated, deleted or reused.
  tools.work_dir = make_private_folder(work_dir_.empty() ? std::filesystem::temp_directory_path()
                                                         : std::filesystem::path(work_dir_),
                                       "slicelab-kernels-")
                       .string();

  if (overhead_->parsed()) {
    if (tools.interposer_library.empty())
      throw std::runtime_error("overhead: the interposer library was not found (--interposer)");
    OverheadOptions o;
    o.kernels = kernels_;
    o.repetitions = repetitions_;
    o.units = units_;
    write_out(out_, measure_overhead(tools, o, *gpu).dump(2) + "\n");
    return 0;
  }
  if (isolation_->parsed()) {
    IsolationOptions o;
    o.kernel = kernel_;
    o.scale = scale_;
    o.shares = shares_;
    o.duration_s = duration_s_;
    if (!chosen.empty()) o.mechanisms = chosen;
    o.memory_test = !no_memory_test_;
    write_out(out_, measure_isolation(tools, o, *gpu).dump(2) + "\n");
    return 0;
  }
  ColocationOptions o;
  if (!kernels_.empty()) o.kernels = kernels_;
  if (!chosen.empty()) o.modes = chosen;
  o.duration_s = duration_s_;
  o.caps = caps;
  // The chosen GPU first: co-located pairs run there, whole-card pairs on it and the next one.
  std::vector<DetectedGpu> gpus{*gpu};
  for (const DetectedGpu& g : det.gpus)
    if (g.index != gpu->index) gpus.push_back(g);
  std::vector<std::string> skipped;
  const auto rows = measure_colocation(tools, o, gpus, skipped);
  for (const std::string& s : skipped) std::fprintf(stderr, "skipped %s\n", s.c_str());
  if (!format_.json()) {
    write_out(out_, colocation_csv(rows));
    return 0;
  }
  nlohmann::ordered_json j;
  j["format"] = "slicelab.kernels-colocation/1";
  j["rows"] = nlohmann::ordered_json::array();
  for (const ColocationRow& r : rows)
    j["rows"].push_back({{"class_a", r.class_a},
                         {"class_b", r.class_b},
                         {"mode", r.mode},
                         {"cap_a", r.cap_a},
                         {"cap_b", r.cap_b},
                         {"slowdown_a", r.slowdown_a},
                         {"slowdown_b", r.slowdown_b}});
  j["skipped"] = skipped;
  write_out(out_, j.dump(2) + "\n");
  return 0;
}

}  // namespace slicelab
