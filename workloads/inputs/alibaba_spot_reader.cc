#include "workloads/inputs/alibaba_spot_reader.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <optional>

#include "workloads/csv_reader.h"
#include "workloads/input_limits.h"

namespace slicelab {
namespace {

bool spot_blank(const CsvReader& csv, size_t c) {
  return csv.field(c).find_first_not_of(" \t") == std::string::npos;
}

std::string_view spot_trimmed(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  return t;
}

}  // namespace

std::vector<JobSpec> read_alibaba_spot_jobs(const std::string& path,
                                            const JobImportOptions& options,
                                            JobImportCounts* counts) {
  CsvReader csv(path);
  const auto c_name = csv.column("job_name");
  const size_t c_org = csv.require_column("organization");
  const auto c_model = csv.column("gpu_model");
  const size_t c_cpu = csv.require_column("cpu_request");
  const size_t c_gpu = csv.require_column("gpu_request");
  const size_t c_workers = csv.require_column("worker_num");
  const size_t c_submit = csv.require_column("submit_time");
  const size_t c_duration = csv.require_column("duration");
  const size_t c_type = csv.require_column("job_type");

  JobCollector jobs(path, options, counts);
  while (csv.next()) {
    jobs.count_record();
    JobSpec job;
    job.name = c_name ? std::string(spot_trimmed(csv.field(*c_name))) : std::string();
    if (c_name && job.name.empty()) csv.fail_field(*c_name, "a job name");
    if (!c_name) job.name = fmt::format("spot-{}", csv.line());
    const std::string_view type = spot_trimmed(csv.field(c_type));
    if (type == "Spot") {
      job.tier = JobTier::kSpot;
    } else if (type != "HP") {
      csv.fail_field(c_type, "HP or Spot");
    }
    const double cpus = csv.number(c_cpu, 0, 1e9);
    const double gpus = csv.number(c_gpu, 0, kMaxGpusPerNode);
    const int64_t workers = csv.integer(c_workers, 0, kMaxJobWorkers);
    const double submitted = csv.number(c_submit, 0, kHorizonS);
    if (spot_blank(csv, c_duration)) {
      jobs.skip("no run time");
      continue;
    }
    job.duration_s = csv.number(c_duration, 0, kHorizonS);
    if (job.duration_s == 0) {
      jobs.skip("zero duration");
      continue;
    }
    if (workers == 0) {
      jobs.skip("no workers");
      continue;
    }
    if (gpus == 0 && !jobs.keep_cpu_only_job()) continue;
    job.workers = static_cast<int>(workers);
    if (gpus > 0 && gpus < 1) {
      // A share of one GPU; the smallest share the engine takes is a thousandth.
      job.worker.gpu_count = 1;
      job.worker.gpu_milli = static_cast<int16_t>(std::clamp(std::lround(gpus * 1000), 1L, 1000L));
    } else {
      job.worker.gpu_count = static_cast<int>(std::ceil(gpus));
      if (gpus != std::floor(gpus)) jobs.adjust("fractional gpus rounded up");
    }
    job.worker.cpu_milli = std::llround(cpus * 1000);
    job.queue = std::string(spot_trimmed(csv.field(c_org)));
    job.worker.workload_class = jobs.text(type);
    if (c_model) job.worker.allowed_models = jobs.models(spot_trimmed(csv.field(*c_model)));
    jobs.add(std::move(job), submitted, fmt::format("{}:{}", path, csv.line()));
  }
  return jobs.finish();
}

}  // namespace slicelab
