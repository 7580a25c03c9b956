#include "reports/queues_csv.h"

#include <fmt/format.h>

#include <algorithm>

#include "reports/output_values.h"

namespace slicelab {
namespace {

constexpr size_t kQueueRowsFlushBytes = size_t{1} << 16;

}  // namespace

bool has_queue_rows(std::span<const RunResult> runs) {
  return std::any_of(runs.begin(), runs.end(),
                     [](const RunResult& r) { return !r.queue_samples.empty(); });
}

void write_queues_csv(std::ostream& out, std::span<const RunResult> runs) {
  fmt::memory_buffer buf;
  fmt::format_to(fmt::appender(buf),
                 "policy,time_s,queue,used_gpus,borrowed_gpus,pending_jobs,admitted_jobs\n");
  for (const RunResult& r : runs) {
    for (const QueueSample& s : r.queue_samples) {
      if (s.queue >= r.summary.queues.size()) continue;
      append_csv_field(buf, r.policy);
      fmt::format_to(fmt::appender(buf), ",{:.9g},", s.time_s);
      append_csv_field(buf, r.summary.queues[s.queue].name);
      fmt::format_to(fmt::appender(buf), ",{:.9g},{:.9g},{},{}\n", s.used_gpus, s.borrowed_gpus,
                     s.pending, s.admitted);
      if (buf.size() >= kQueueRowsFlushBytes) {
        out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
        buf.clear();
      }
    }
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace slicelab
