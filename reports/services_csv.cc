#include "reports/services_csv.h"

#include <fmt/format.h>

#include <algorithm>

#include "reports/output_values.h"

namespace slicelab {
namespace {

constexpr size_t kServiceRowsFlushBytes = size_t{1} << 16;

void optional_field(fmt::memory_buffer& buf, const std::optional<double>& v) {
  if (v) fmt::format_to(fmt::appender(buf), "{:.6g}", *v);
}

}  // namespace

bool has_service_rows(std::span<const RunResult> runs) {
  return std::any_of(runs.begin(), runs.end(),
                     [](const RunResult& r) { return !r.service_samples.empty(); });
}

void write_services_csv(std::ostream& out, std::span<const RunResult> runs) {
  fmt::memory_buffer buf;
  fmt::format_to(fmt::appender(buf),
                 "policy,time_s,service,rate,latency_p50_s,latency_p95_s,latency_p99_s,lost,"
                 "replicas_wanted,replicas_placed,replicas_ready\n");
  for (const RunResult& r : runs) {
    for (const ServiceSample& s : r.service_samples) {
      if (s.service >= r.summary.services.size()) continue;
      append_csv_field(buf, r.policy);
      fmt::format_to(fmt::appender(buf), ",{:.9g},", s.time_s);
      append_csv_field(buf, r.summary.services[s.service].name);
      fmt::format_to(fmt::appender(buf), ",{:.6g},", s.rate);
      optional_field(buf, s.p50);
      buf.push_back(',');
      optional_field(buf, s.p95);
      buf.push_back(',');
      optional_field(buf, s.p99);
      fmt::format_to(fmt::appender(buf), ",{:.6g},{},{},{}\n", s.lost, s.wanted, s.placed, s.ready);
      if (buf.size() >= kServiceRowsFlushBytes) {
        out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
        buf.clear();
      }
    }
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace slicelab
