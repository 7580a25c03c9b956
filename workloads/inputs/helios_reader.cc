#include "workloads/inputs/helios_reader.h"

#include <string_view>

#include "workloads/inputs/slurm_job_log.h"

namespace slicelab {

std::vector<JobSpec> read_helios_jobs(const std::string& path, const JobImportOptions& options,
                                      JobImportCounts* counts) {
  // HeliosData's README: vc is the job's virtual cluster (its quota), `queue` its queueing delay.
  static constexpr std::string_view kQueues[] = {"vc", "user"};
  return read_slurm_job_log(
      path, SlurmLogFormat{.queue_columns = kQueues, .class_column = {}, .memory_gib_column = {}},
      options, counts);
}

}  // namespace slicelab
