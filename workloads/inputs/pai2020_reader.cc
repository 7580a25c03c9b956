#include "workloads/inputs/pai2020_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>

#include "workloads/csv_reader.h"
#include "workloads/input_error.h"
#include "workloads/input_limits.h"

namespace slicelab {
namespace {

std::string_view pai_trimmed(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  return t;
}

// A PAI table, with or without its header row. CsvReader always takes the first row as the
// header and refuses one that repeats a name, which a data row does whenever two of its cells
// are equal (plan_cpu and plan_gpu both "100.0"); so the rows are split here. The trace's
// fields are hashed names and numbers, never quoted.
class PaiTable {
 public:
  PaiTable(const std::string& path, std::span<const std::string_view> columns)
      : path_(path), names_(columns), text_(read_job_trace_text(path)) {
    if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;
    index_.assign(columns.size(), 0);
    if (!read_row())
      throw InputError(
          fmt::format("{}: empty file: expected rows of {}", path_, fmt::join(names_, ",")));
    // A header row names the first column (job_name) somewhere; a data row holds hashes there.
    if (std::any_of(fields_.begin(), fields_.end(),
                    [&](std::string_view f) { return pai_trimmed(f) == names_[0]; })) {
      header_line_ = true;
      for (size_t c = 0; c < names_.size(); ++c) {
        const auto it = std::find_if(fields_.begin(), fields_.end(), [&](std::string_view f) {
          return pai_trimmed(f) == names_[c];
        });
        if (it == fields_.end())
          fail(fmt::format("missing column '{}' (the header has: {})", names_[c],
                           fmt::join(fields_, ", ")));
        index_[c] = static_cast<size_t>(it - fields_.begin());
      }
      width_ = fields_.size();
    } else {
      for (size_t c = 0; c < names_.size(); ++c) index_[c] = c;
      width_ = names_.size();
      check_width();
      pending_ = true;  // the first row is data
    }
  }

  bool next() {
    if (pending_) {
      pending_ = false;
      return true;
    }
    if (!read_row()) return false;
    check_width();
    return true;
  }

  size_t line() const { return line_; }
  std::string where() const { return fmt::format("{}:{}", path_, line_); }
  std::string_view field(size_t c) const { return pai_trimmed(fields_[index_[c]]); }
  // Empty cells, and "nan" as pandas may write a missing number.
  bool missing(size_t c) const {
    const std::string_view f = field(c);
    return f.empty() || f == "nan" || f == "NaN" || f == "NAN";
  }

  [[noreturn]] void fail(std::string_view what) const {
    throw InputError(fmt::format("{}:{}: {}", path_, line_, what));
  }
  [[noreturn]] void fail_field(size_t c, std::string_view expected) const {
    fail(fmt::format("column '{}': expected {}, found '{}'", names_[c], expected,
                     fields_[index_[c]]));
  }

  double number(size_t c, double min, double max) const {
    double v = 0;
    if (!parse_csv_number(field(c), v) || v < min || v > max)
      fail_field(c, fmt::format("a number in {}..{}", static_cast<int64_t>(min),
                                static_cast<int64_t>(max)));
    return v;
  }

 private:
  std::string path_;
  std::span<const std::string_view> names_;
  std::string text_;
  size_t pos_ = 0;
  size_t next_line_ = 1;
  size_t line_ = 0;
  bool header_line_ = false;
  bool pending_ = false;
  size_t width_ = 0;
  std::vector<size_t> index_;  // README column -> field index
  std::vector<std::string_view> fields_;

  // The next non-blank line, split at commas; false at the end of the file.
  bool read_row() {
    while (pos_ < text_.size()) {
      size_t end = text_.find('\n', pos_);
      if (end == std::string::npos) end = text_.size();
      std::string_view row(text_.data() + pos_, end - pos_);
      pos_ = end + 1;
      line_ = next_line_++;
      if (row.ends_with('\r')) row.remove_suffix(1);
      if (pai_trimmed(row).empty()) continue;
      fields_.clear();
      for (size_t from = 0;;) {
        const size_t comma = row.find(',', from);
        fields_.push_back(
            row.substr(from, comma == std::string_view::npos ? row.npos : comma - from));
        if (comma == std::string_view::npos) break;
        from = comma + 1;
      }
      return true;
    }
    return false;
  }

  void check_width() const {
    if (fields_.size() == width_) return;
    if (header_line_)
      fail(fmt::format("expected {} fields as in the header, found {}", width_, fields_.size()));
    fail(
        fmt::format("expected {} fields ({}: the README's columns, as the file has no header "
                    "row), found {}",
                    width_, fmt::join(names_, ","), fields_.size()));
  }
};

enum JobColumn : size_t { kJobName, kJobInstId, kJobUser, kJobStatus, kJobStart, kJobEnd };
enum TaskColumn : size_t {
  kTaskJob,
  kTaskName,
  kTaskInstNum,
  kTaskStatus,
  kTaskStart,
  kTaskEnd,
  kTaskCpu,
  kTaskMem,
  kTaskGpu,
  kTaskGpuType
};

// The README's times are seconds from a hidden origin; a year of them is the horizon, and the
// bound keeps the sums exact.
constexpr double kMaxTime = 1e12;

struct PaiJob {
  std::optional<double> submitted_s;
  std::string user;
  size_t line = 0;
};

std::unordered_map<std::string, PaiJob> read_job_table(const std::string& path) {
  PaiTable table(path, kPaiJobColumns);
  std::unordered_map<std::string, PaiJob> jobs;
  while (table.next()) {
    if (table.missing(kJobName)) table.fail_field(kJobName, "a job name");
    PaiJob job;
    job.line = table.line();
    if (!table.missing(kJobStart)) job.submitted_s = table.number(kJobStart, 0, kMaxTime);
    job.user = std::string(table.field(kJobUser));
    const auto [it, fresh] = jobs.emplace(std::string(table.field(kJobName)), std::move(job));
    if (!fresh)
      table.fail_field(kJobName,
                       fmt::format("a unique job name (also on line {})", it->second.line));
    if (std::cmp_greater(jobs.size(), kMaxJobs))
      table.fail(fmt::format("more than {} jobs (the limit of one workload)", kMaxJobs));
  }
  return jobs;
}

}  // namespace

std::string pai2020_model_name(std::string_view gpu_type) {
  if (gpu_type == "V100M32") return "V100-32GB";
  if (gpu_type == "V100" || gpu_type == "V100M16") return "V100-16GB";
  return std::string(gpu_type);
}

std::vector<JobSpec> read_pai2020_jobs(const std::string& task_table, const std::string& job_table,
                                       const JobImportOptions& options, JobImportCounts* counts) {
  const std::unordered_map<std::string, PaiJob> submitted =
      job_table.empty() ? std::unordered_map<std::string, PaiJob>() : read_job_table(job_table);
  PaiTable table(task_table, kPaiTaskColumns);
  JobCollector jobs(task_table, options, counts);
  while (table.next()) {
    jobs.count_record();
    if (table.missing(kTaskJob)) table.fail_field(kTaskJob, "a job name");
    const auto whole = [&table](size_t c, int64_t max) {
      const std::optional<int64_t> v = parse_whole_number(table.field(c));
      if (!v || *v < 0 || *v > max)
        table.fail_field(c, fmt::format("a whole number in 0..{}", max));
      return *v;
    };
    const auto percent = [&table](size_t c, double max) {
      return table.missing(c) ? 0.0 : table.number(c, 0, max);
    };
    const int64_t instances = table.missing(kTaskInstNum) ? 0 : whole(kTaskInstNum, kMaxJobWorkers);
    // NaN for a missing time (std::optional trips GCC 12's -Wmaybe-uninitialized here).
    const auto time = [&table](size_t c) {
      return table.missing(c) ? std::nan("") : table.number(c, 0, kMaxTime);
    };
    const double start = time(kTaskStart);
    const double end = time(kTaskEnd);
    if (end < start)
      table.fail_field(kTaskEnd,
                       fmt::format("a time at or after start_time ({})", table.field(kTaskStart)));
    const double cpu_percent = percent(kTaskCpu, 1e9);
    const double memory_gib = percent(kTaskMem, 1e9);
    const double gpu_percent = percent(kTaskGpu, kMaxGpusPerNode * 100.0);
    if (std::isnan(start) || std::isnan(end)) {
      jobs.skip("no run time");
      continue;
    }
    if (end == start) {
      jobs.skip("zero duration");
      continue;
    }
    if (instances == 0) {
      jobs.skip("no instances");
      continue;
    }
    if (gpu_percent == 0 && !jobs.keep_cpu_only_job()) continue;

    JobSpec job;
    const std::string_view job_name = table.field(kTaskJob);
    const std::string_view task_name = table.field(kTaskName);
    job.name = fmt::format("{}/{}", job_name, task_name);
    job.workers = static_cast<int>(instances);
    job.duration_s = end - start;
    if (gpu_percent > 0 && gpu_percent <= 100) {
      job.worker.gpu_count = 1;
      job.worker.gpu_milli =
          static_cast<int16_t>(std::clamp(std::lround(gpu_percent * 10), 1L, 1000L));
    } else if (gpu_percent > 100) {
      job.worker.gpu_count = static_cast<int>(std::ceil(gpu_percent / 100));
      if (gpu_percent != job.worker.gpu_count * 100.0)
        jobs.adjust("gpu share above one rounded up");
    }
    job.worker.cpu_milli = std::llround(cpu_percent * 10);
    job.worker.memory_mib = std::llround(memory_gib * 1024);
    if (!task_name.empty()) job.worker.workload_class = jobs.text(task_name);
    // MISC is the README's "GPUs of older generations" (K40m, K80, M60): no one model.
    if (job.worker.gpu_count > 0 && !table.missing(kTaskGpuType) &&
        table.field(kTaskGpuType) != "MISC")
      job.worker.allowed_models = jobs.models(pai2020_model_name(table.field(kTaskGpuType)));
    double arrival = start;
    if (!job_table.empty()) {
      const auto it = submitted.find(std::string(job_name));
      if (it != submitted.end() && it->second.submitted_s) {
        arrival = *it->second.submitted_s;
        job.queue = it->second.user;
      } else {
        jobs.adjust("no job submission: arrives at its start");
        if (it != submitted.end()) job.queue = it->second.user;
      }
    }
    jobs.add(std::move(job), arrival, table.where());
  }
  return jobs.finish();
}

}  // namespace slicelab
