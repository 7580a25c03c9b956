#include "workloads/inputs/acme_reader.h"

#include <string_view>

#include "workloads/inputs/slurm_job_log.h"

namespace slicelab {

std::vector<JobSpec> read_acme_jobs(const std::string& path, const JobImportOptions& options,
                                    JobImportCounts* counts) {
  // AcmeTrace's README: no virtual-cluster column, so each user is a queue.
  static constexpr std::string_view kQueues[] = {"user"};
  return read_slurm_job_log(
      path,
      SlurmLogFormat{
          .queue_columns = kQueues, .class_column = "type", .memory_gib_column = "mem_per_pod_GB"},
      options, counts);
}

}  // namespace slicelab
