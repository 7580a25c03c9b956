#include "workloads/inputs/job_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "workloads/csv_reader.h"
#include "workloads/input_error.h"
#include "workloads/input_limits.h"
#include "workloads/rfc3339.h"
#include "workloads/text_file.h"

namespace slicelab {
namespace {

int64_t count_of(const std::map<std::string, int64_t, std::less<>>& m, std::string_view key) {
  const auto it = m.find(key);
  return it == m.end() ? 0 : it->second;
}

std::string describe(const std::map<std::string, int64_t, std::less<>>& m) {
  std::string out;
  for (const auto& [reason, n] : m)
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, reason);
  return out;
}

}  // namespace

int64_t JobImportCounts::skipped_total() const {
  int64_t n = 0;
  for (const auto& [reason, count] : skipped) n += count;
  return n;
}

int64_t JobImportCounts::skipped_for(std::string_view reason) const {
  return count_of(skipped, reason);
}

int64_t JobImportCounts::adjusted_for(std::string_view reason) const {
  return count_of(adjusted, reason);
}

std::optional<double> parse_trace_time(std::string_view text, std::string& error) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  // "YYYY-MM-DD HH:MM:SS" is 19 characters; after it come a fraction and a zone, if any. RFC
  // 3339 takes the rest, once a missing zone is made UTC.
  constexpr size_t kDateTime = 19;
  if (text.size() < kDateTime) {
    error = "expected a time \"YYYY-MM-DD HH:MM:SS\"";
    return std::nullopt;
  }
  std::string full(text);
  // The fraction's '.' and digits hold no zone designator, so the first of these is the zone.
  const size_t zone = full.find_first_of("Zz+-", kDateTime);
  if (zone == std::string::npos) full += 'Z';
  const std::optional<Rfc3339Time> t = parse_rfc3339(full, error);
  if (!t) return std::nullopt;
  return t->seconds_since(Rfc3339Time{});
}

std::optional<int64_t> parse_whole_number(std::string_view text) {
  if (int64_t v = 0; parse_csv_integer(text, v)) return v;
  double d = 0;
  constexpr double kExact = 9007199254740992.0;  // 2^53: every whole number below is exact
  if (!parse_csv_number(text, d) || d != std::floor(d) || std::fabs(d) > kExact)
    return std::nullopt;
  return static_cast<int64_t>(d);
}

std::string read_job_trace_text(const std::string& path) {
  std::string text = read_text_file(path, kMaxJobTraceBytes);
  check_utf8(text, path);
  return text;
}

JobCollector::JobCollector(std::string path, const JobImportOptions& options,
                           JobImportCounts* counts)
    : path_(std::move(path)), options_(options), counts_(counts ? counts : &own_counts_) {
  *counts_ = JobImportCounts{};
}

void JobCollector::count_record() {
  ++counts_->records;
}

void JobCollector::skip(std::string_view reason) {
  auto it = counts_->skipped.find(reason);
  if (it == counts_->skipped.end()) it = counts_->skipped.emplace(std::string(reason), 0).first;
  ++it->second;
}

void JobCollector::adjust(std::string_view reason) {
  auto it = counts_->adjusted.find(reason);
  if (it == counts_->adjusted.end()) it = counts_->adjusted.emplace(std::string(reason), 0).first;
  ++it->second;
}

bool JobCollector::keep_cpu_only_job() {
  if (options_.keep_cpu_only) return true;
  skip("cpu-only job");
  return false;
}

ModelList JobCollector::models(std::string_view model) {
  if (model.empty()) return {};
  if (!options_.check_model || options_.check_model(model)) {
    adjust("gpu model not in the catalog");
    return {};
  }
  return shared_.models({std::string(model)});
}

void JobCollector::add(JobSpec job, double submitted_s, const std::string& where) {
  const auto fail = [&where](const std::string& what) {
    throw InputError(fmt::format("{}: {}", where, what));
  };
  if (job.workers < 1 || job.workers > kMaxJobWorkers)
    fail(fmt::format("job '{}': expected 1..{} workers, found {}", job.name, kMaxJobWorkers,
                     job.workers));
  if (job.worker.gpu_count < 0 || job.worker.gpu_count > kMaxGpusPerNode)
    fail(
        fmt::format("job '{}': expected 0..{} GPUs per worker (the most one node holds), "
                    "found {}",
                    job.name, kMaxGpusPerNode, job.worker.gpu_count));
  if (!(job.duration_s > 0) || job.duration_s > kHorizonS)
    fail(
        fmt::format("job '{}': expected a run time in (0, {}] seconds (the simulation horizon "
                    "of {}), found {}",
                    job.name, kHorizonS, kHorizonText, job.duration_s));
  if (!std::isfinite(submitted_s))
    fail(fmt::format("job '{}': the submission is not finite", job.name));
  if (jobs_.empty() || submitted_s < earliest_) earliest_ = submitted_s, earliest_where_ = where;
  if (jobs_.empty() || submitted_s > latest_) latest_ = submitted_s, latest_where_ = where;
  if (latest_ - earliest_ > kHorizonS)
    fail(fmt::format(
        "job '{}': submitted more than {} (the simulation horizon) from the job at "
        "{}",
        job.name, kHorizonText, submitted_s == earliest_ ? latest_where_ : earliest_where_));
  if (std::cmp_equal(jobs_.size(), kMaxJobs))
    fail(fmt::format("more than {} jobs (the limit of one workload)", kMaxJobs));
  workers_ += job.workers;
  if (workers_ > kMaxPods)
    fail(fmt::format("more than {} workers in all (the pod limit of one workload)", kMaxPods));
  if (!names_.insert(job.name).second) {
    adjust("renamed duplicate");
    std::string name;
    for (int64_t k = 2;; ++k) {
      name = fmt::format("{}-{}", job.name, k);
      if (names_.insert(name).second) break;
    }
    job.name = std::move(name);
  }
  jobs_.push_back(std::move(job));
  submitted_.push_back(submitted_s);
  ++counts_->imported;
}

std::vector<JobSpec> JobCollector::finish() {
  if (jobs_.empty())
    throw InputError(
        fmt::format("{}: no jobs to import ({} records read{}{})", path_, counts_->records,
                    counts_->skipped.empty() ? "" : "; skipped: ", describe(counts_->skipped)));
  for (size_t i = 0; i < jobs_.size(); ++i) jobs_[i].arrival_s = submitted_[i] - earliest_;
  submitted_.clear();
  names_.clear();
  return std::move(jobs_);
}

}  // namespace slicelab
