#include "workloads/inputs/slurm_job_log.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>

#include "workloads/csv_reader.h"
#include "workloads/input_limits.h"

namespace slicelab {
namespace {

// No bound of our own on totals: per-worker limits are checked after the division by node_num.
constexpr int64_t kMaxTotal = int64_t{1} << 40;

bool slurm_blank(const CsvReader& csv, size_t c) {
  return csv.field(c).find_first_not_of(" \t") == std::string::npos;
}

int64_t whole(const CsvReader& csv, size_t c, int64_t min, int64_t max) {
  const std::optional<int64_t> v = parse_whole_number(csv.field(c));
  if (!v || *v < min || *v > max)
    csv.fail_field(c, max == kMaxTotal ? fmt::format("a whole number of at least {}", min)
                                       : fmt::format("a whole number in {}..{}", min, max));
  return *v;
}

// Columns a file may lack are kNone (std::optional's ternaries trip GCC 12's
// -Wmaybe-uninitialized).
constexpr size_t kNone = SIZE_MAX;

bool blank_or_none(const CsvReader& csv, size_t c) {
  return c == kNone || slurm_blank(csv, c);
}

// A date column's time in seconds since the epoch; NaN when the cell is empty or there is no
// such column.
double slurm_time_of(const CsvReader& csv, size_t c) {
  if (blank_or_none(csv, c)) return std::nan("");
  std::string error;
  const std::optional<double> t = parse_trace_time(csv.field(c), error);
  if (!t) csv.fail_field(c, "a time \"YYYY-MM-DD HH:MM:SS\" (with an optional zone \"+08:00\")");
  return *t;
}

}  // namespace

std::vector<JobSpec> read_slurm_job_log(const std::string& path, const SlurmLogFormat& format,
                                        const JobImportOptions& options, JobImportCounts* counts) {
  CsvReader csv(path);
  const size_t c_id = csv.require_column("job_id");
  const size_t c_nodes = csv.require_column("node_num");
  const size_t c_gpus = csv.require_column("gpu_num");
  const size_t c_cpus = csv.require_column("cpu_num");
  const size_t c_submit = csv.require_column("submit_time");
  const size_t c_duration = csv.column("duration").value_or(kNone);
  const size_t c_start = csv.column("start_time").value_or(kNone);
  const size_t c_end = csv.column("end_time").value_or(kNone);
  if (c_duration == kNone) {
    // Without a duration column the run time is end_time - start_time: both are needed.
    csv.require_column("start_time");
    csv.require_column("end_time");
  }
  size_t c_queue = kNone;
  for (const std::string_view name : format.queue_columns)
    if ((c_queue = csv.column(name).value_or(kNone)) != kNone) break;
  const size_t c_class =
      format.class_column.empty() ? kNone : csv.column(format.class_column).value_or(kNone);
  const size_t c_memory = format.memory_gib_column.empty()
                              ? kNone
                              : csv.column(format.memory_gib_column).value_or(kNone);

  JobCollector jobs(path, options, counts);
  while (csv.next()) {
    jobs.count_record();
    JobSpec job;
    job.name = csv.field(c_id);
    if (slurm_blank(csv, c_id)) csv.fail_field(c_id, "a job id");
    const int64_t nodes = whole(csv, c_nodes, 0, kMaxJobWorkers);
    const int64_t gpus = whole(csv, c_gpus, 0, kMaxTotal);
    const int64_t cpus = whole(csv, c_cpus, 0, kMaxTotal);
    const double memory_gib = blank_or_none(csv, c_memory) ? 0.0 : csv.number(c_memory, 0, 1e9);
    const double submitted = slurm_time_of(csv, c_submit);
    double run_s = std::nan("");
    if (!blank_or_none(csv, c_duration)) {
      run_s = csv.number(c_duration, 0, kHorizonS);
    } else {
      const double start = slurm_time_of(csv, c_start);
      const double end = slurm_time_of(csv, c_end);
      if (end < start)
        csv.fail_field(c_end,
                       fmt::format("a time at or after start_time ('{}')", csv.field(c_start)));
      run_s = end - start;  // NaN when either is missing
    }
    if (std::isnan(submitted)) {
      jobs.skip("no submit time");
      continue;
    }
    if (std::isnan(run_s)) {
      jobs.skip("no run time");
      continue;
    }
    if (run_s == 0) {
      jobs.skip("zero duration");
      continue;
    }
    if (nodes == 0) {
      jobs.skip("no nodes");
      continue;
    }
    if (gpus == 0 && !jobs.keep_cpu_only_job()) continue;
    job.workers = static_cast<int>(nodes);
    const int64_t gpus_per_node = (gpus + nodes - 1) / nodes;
    if (gpus_per_node > kMaxGpusPerNode)
      csv.fail_field(c_gpus, fmt::format("at most {} GPUs on each of node_num {} nodes",
                                         kMaxGpusPerNode, nodes));
    if (gpus % nodes != 0) jobs.adjust("gpus uneven across nodes");
    job.worker.gpu_count = static_cast<int>(gpus_per_node);
    job.worker.cpu_milli = (cpus + nodes - 1) / nodes * 1000;
    job.worker.memory_mib = std::llround(memory_gib * 1024);
    if (c_queue != kNone) job.queue = csv.field(c_queue);
    if (!blank_or_none(csv, c_class)) job.worker.workload_class = jobs.text(csv.field(c_class));
    job.duration_s = run_s;
    jobs.add(std::move(job), submitted, fmt::format("{}:{}", path, csv.line()));
  }
  return jobs.finish();
}

}  // namespace slicelab
