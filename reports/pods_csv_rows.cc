#include "reports/pods_csv_rows.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <vector>

#include "reports/general_number.h"
#include "reports/output_values.h"
#include "sim/parallel/parallel_for.h"

namespace slicelab {

namespace {

constexpr int kMaxFormatThreads = 4;

}  // namespace

std::string pods_csv_header(const Scenario& scenario) {
  // The restart count only where the scenario has a restart policy: other files stay as they were.
  return fmt::format(
      "policy,pod,class,status,arrival_s,start_s,finish_s,queue_delay_s,jct_s,slowdown,node,gpus,"
      "reason,isolation_error{}\n",
      scenario.engine.restart.enabled() ? ",restarts" : "");
}

// One pods.csv row, written in place: the buffer grows once by the row's largest size, the
// fields are written through a pointer, and the buffer is cut back to what was written (its
// append and push_back were a third of the writer's time, the numbers most of the rest).
void append_pod_row(fmt::memory_buffer& buf, std::string_view policy, const PodSpec& spec,
                    const PodOutcome& o, std::span<const uint16_t> gpus, std::string_view reason,
                    bool restarts) {
  const std::string_view name = spec.name;
  const std::string_view workload_class = spec.workload_class;
  const std::string_view status = to_string(o.status);
  constexpr size_t kInteger = 24;  // any 64-bit integer and its separator
  const size_t room = policy.size() + csv_field_room(name) + csv_field_room(workload_class) +
                      status.size() + 7 * (kGeneralMaxChars + 1) + (gpus.size() + 2) * kInteger +
                      csv_field_room(reason) + 8;
  const size_t size = buf.size();
  buf.resize(size + room);
  char* p = buf.data() + size;
  const auto integer = [&](auto v) { p = std::to_chars(p, p + kInteger, v).ptr; };
  const auto opt_num = [&](bool present, double v) {
    if (present) p = write_general(p, v, 9);
    *p++ = ',';
  };
  const bool started = o.start_s >= 0 && o.status != PodStatus::kFailed;
  const bool done = o.status == PodStatus::kCompleted;
  std::memcpy(p, policy.data(), policy.size());
  p += policy.size();
  *p++ = ',';
  p = write_csv_field(p, name);
  *p++ = ',';
  p = write_csv_field(p, workload_class);
  *p++ = ',';
  std::memcpy(p, status.data(), status.size());
  p += status.size();
  *p++ = ',';
  opt_num(true, spec.arrival_s);
  opt_num(o.start_s >= 0, o.start_s);
  opt_num(o.finish_s >= 0, o.finish_s);
  opt_num(started, o.start_s - spec.arrival_s);
  opt_num(done, o.finish_s - spec.arrival_s);
  opt_num(done, (o.finish_s - spec.arrival_s) / o.solo_s);
  if (o.node >= 0) integer(o.node);
  *p++ = ',';
  for (size_t k = 0; k < gpus.size(); ++k) {
    if (k != 0) *p++ = ';';
    integer(gpus[k]);
  }
  *p++ = ',';
  p = write_csv_field(p, reason);
  // Empty for pods no mode capped (docs/sharing-models.md).
  *p++ = ',';
  if (o.isolation_error >= 0) p = write_general(p, o.isolation_error, 6);
  if (restarts) {
    *p++ = ',';
    integer(o.restarts);
  }
  *p++ = '\n';
  buf.resize(static_cast<size_t>(p - buf.data()));
}

void write_pod_rows(const std::function<void(std::string_view)>& sink, const Scenario& scenario,
                    std::span<const RunResult> runs, size_t skip, int width) {
  const bool restarts = scenario.engine.restart.enabled();
  // Blocks of rows are formatted side by side (formatting is two thirds of a million-pod
  // file's cost) and written in order, a window of two blocks per thread at a time, so a file
  // of any length needs only a few blocks of memory.
  const size_t threads = static_cast<size_t>(std::clamp(width, 1, kMaxFormatThreads));
  std::vector<fmt::memory_buffer> blocks(2 * threads);
  for (size_t run = 0; run < runs.size(); ++run) {
    const RunResult& r = runs[run];
    const std::string policy = csv_field(r.policy);
    const size_t begin_row = run == 0 ? std::min(skip, r.pods.size()) : 0;
    const size_t rows = r.pods.size() - begin_row;
    const size_t count = (rows + kPodRowsPerBlock - 1) / kPodRowsPerBlock;
    const std::span<const uint16_t> all_gpus = r.pod_gpus;
    for (size_t first = 0; first < count; first += blocks.size()) {
      const size_t window = std::min(blocks.size(), count - first);
      parallel_for(window, static_cast<int>(threads), [&](size_t k) {
        fmt::memory_buffer& buf = blocks[k];
        const size_t begin = begin_row + (first + k) * kPodRowsPerBlock;
        const size_t end = std::min(begin_row + rows, begin + kPodRowsPerBlock);
        for (size_t i = begin; i < end; ++i) {
          const PodOutcome& o = r.pods[i];
          const auto gpus = o.gpu_count == 0 ? std::span<const uint16_t>{}
                                             : all_gpus.subspan(o.gpu_begin, o.gpu_count);
          append_pod_row(buf, policy, scenario.pods[i], o, gpus, r.reason_of(i), restarts);
        }
      });
      for (size_t k = 0; k < window; ++k) {
        sink(std::string_view(blocks[k].data(), blocks[k].size()));
        blocks[k].clear();
      }
    }
  }
}

}  // namespace slicelab
