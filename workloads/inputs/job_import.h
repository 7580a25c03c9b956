// What the training-job trace readers (Philly, Helios, Acme, PAI 2020, Alibaba spot) share: their
// options, the counts of what they skipped and why, and the collector that enforces the limits.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "workloads/inputs/pod_yaml.h"
#include "workloads/job_spec.h"
#include "workloads/pod_value_interner.h"

namespace slicelab {

// The largest job trace a reader takes. A real trace's job table is a few hundred MB (PAI 2020's
// task table, Philly's job log); the whole file is held while it is read, so the bound is what
// a mistaken argument (a disk image) may cost.
inline constexpr uint64_t kMaxJobTraceBytes = uint64_t{2} << 30;

struct JobImportOptions {
  // Jobs that ask for no GPU: kept as CPU-only workers (gpu_count 0), or skipped and counted
  // under "cpu-only job" (the default: the traces hold millions of them, and they take no GPU).
  bool keep_cpu_only = false;
  // Vets a GPU model named by the trace (PAI's gpu_type, the spot trace's gpu_model): a model it
  // accepts becomes the worker's allowed_models; any other (and every one when it is empty)
  // leaves the job free to run on any model, counted under "gpu model not in the catalog".
  ModelCheck check_model;
};

// What a reader did besides importing jobs: records skipped per reason ("no attempts", "zero
// duration") and records imported with a documented adjustment ("renamed duplicate"). The
// reasons are fixed phrases of each reader (docs/job-traces.md); tests compare them.
struct JobImportCounts {
  int64_t records = 0;  // job records read (rows, JSON objects), skipped or not
  int64_t imported = 0;
  std::map<std::string, int64_t, std::less<>> skipped;
  std::map<std::string, int64_t, std::less<>> adjusted;

  int64_t skipped_total() const;
  int64_t skipped_for(std::string_view reason) const;
  int64_t adjusted_for(std::string_view reason) const;
};

// A point in time written "YYYY-MM-DD HH:MM:SS" (Philly, Helios) with an optional fraction and
// an optional zone ("+08:00", "Z": Acme), as seconds since the Unix epoch. A time without a zone
// is read as UTC: only differences between a file's times are used. std::nullopt, with `error`
// set to a sentence, when the text is no such time.
std::optional<double> parse_trace_time(std::string_view text, std::string& error);

// A whole number written as an integer ("8") or as a number with no fraction ("8.0", as pandas
// writes an integer column that has gaps); std::nullopt for anything else, and past 2^53.
std::optional<int64_t> parse_whole_number(std::string_view text);

// The text of a job trace file, checked: at most kMaxJobTraceBytes, UTF-8. Throws InputError.
std::string read_job_trace_text(const std::string& path);

// Builds a reader's job list record by record and enforces what every reader promises: at most
// kMaxJobs jobs, 1..kMaxJobWorkers workers and 0..kMaxGpusPerNode GPUs per worker, durations in
// (0, kHorizonS], submissions within kHorizonS of each other, names unique. Failures are
// InputErrors "WHERE: ...", WHERE being the record's location ("file:line"). Not thread-safe.
class JobCollector {
 public:
  JobCollector(std::string path, const JobImportOptions& options, JobImportCounts* counts);

  // Counts one record read (before it is skipped or added).
  void count_record();
  // Counts a record not imported, under `reason`.
  void skip(std::string_view reason);
  // Counts an imported record's documented adjustment.
  void adjust(std::string_view reason);
  // Whether a job asking for no GPU is kept; counts the skip when it is not.
  bool keep_cpu_only_job();
  // The worker's allowed models for a model the trace names (empty text: any model): the model
  // when the options' check accepts it, else any model (counted). Shared between workers.
  ModelList models(std::string_view model);
  // A class shared between workers with the same value.
  SharedText text(std::string_view value) { return shared_.text(value); }

  // Adds a job read at `where` with its submission in absolute seconds (any origin: the arrivals
  // are rebased by finish()). A duplicate name gets the first free suffix "-2", "-3", ...
  void add(JobSpec job, double submitted_s, const std::string& where);

  // The jobs, their arrivals counted from the earliest submission. Throws InputError when the
  // file held no job at all ("PATH: no jobs ...", with what was skipped).
  std::vector<JobSpec> finish();

 private:
  std::string path_;
  const JobImportOptions& options_;
  JobImportCounts own_counts_;
  JobImportCounts* counts_;
  PodValueInterner shared_;
  std::unordered_set<std::string> names_;
  std::vector<JobSpec> jobs_;
  std::vector<double> submitted_;
  double earliest_ = 0, latest_ = 0;
  std::string earliest_where_, latest_where_;
  int64_t workers_ = 0;
};

}  // namespace slicelab
