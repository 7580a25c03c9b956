#include "reports/jobs_csv.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "reports/output_values.h"

namespace slicelab {
namespace {

constexpr size_t kJobRowsFlushBytes = size_t{1} << 16;

// A time that may not have happened: empty when negative.
void time_cell(fmt::memory_buffer& out, double t) {
  out.push_back(',');
  if (t >= 0) fmt::format_to(fmt::appender(out), "{:.9g}", t);
}

}  // namespace

bool has_job_rows(std::span<const RunResult> runs) {
  return std::any_of(runs.begin(), runs.end(), [](const RunResult& r) { return !r.jobs.empty(); });
}

void write_jobs_csv(std::ostream& out, const JobTable& jobs, std::string_view default_queue,
                    std::span<const RunResult> runs) {
  fmt::memory_buffer buf;
  fmt::format_to(fmt::appender(buf),
                 "policy,job,queue,tier,pods,min_member,status,arrival_s,admitted_s,start_s,"
                 "finish_s,queue_delay_s,jct_s,held_gpu_s,evicted_pods,lost_gpu_s,reclaimed,"
                 "gang_timeouts\n");
  for (const RunResult& r : runs) {
    const size_t n = std::min(r.jobs.size(), jobs.size());
    for (size_t j = 0; j < n; ++j) {
      const JobInfo& job = jobs[j];
      const JobOutcome& o = r.jobs[j];
      append_csv_field(buf, r.policy);
      buf.push_back(',');
      append_csv_field(buf, job.name);
      buf.push_back(',');
      append_csv_field(buf, job.queue.empty() ? default_queue : std::string_view(job.queue));
      fmt::format_to(fmt::appender(buf), ",{},{},{},{}",
                     job.tier == JobTier::kSpot ? "spot" : "regular", job.pod_count, job.min_member,
                     to_string(o.status));
      time_cell(buf, job.arrival_s);
      time_cell(buf, o.admitted_s);
      time_cell(buf, o.start_s);
      time_cell(buf, o.finish_s);
      time_cell(buf, o.start_s >= 0 ? o.start_s - job.arrival_s : -1);
      time_cell(buf, o.status == PodStatus::kCompleted ? o.finish_s - job.arrival_s : -1);
      fmt::format_to(fmt::appender(buf), ",{:.9g},{},{:.9g},{},{}\n", o.held_gpu_s, o.evicted_pods,
                     o.lost_gpu_s, o.reclaimed, o.gang_timeouts);
      if (buf.size() >= kJobRowsFlushBytes) {
        out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
        buf.clear();
      }
    }
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace slicelab
