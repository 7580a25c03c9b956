#include "workloads/inputs/philly_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "workloads/bounded_json.h"
#include "workloads/input_error.h"

namespace slicelab {
namespace {

using nlohmann::json;

// Deeper than any job object (4 levels: job, attempts, detail, gpus); the scanner refuses more
// before the parser sees it.
constexpr size_t kMaxDepth = 16;

// A value as an error message shows it: its JSON, cut short.
std::string shown(const json& v) {
  std::string text = v.dump();
  constexpr size_t kMax = 60;
  if (text.size() > kMax) text = text.substr(0, kMax) + "...";
  return text;
}

// Walks the top-level list of the file without parsing it: where each job object begins and
// ends, and on which line, so that each job is parsed on its own.
class ListScanner {
 public:
  ListScanner(std::string_view text, const std::string& path) : text_(text), path_(path) {
    if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;
  }

  [[noreturn]] void fail(size_t line, std::string_view what) const {
    throw InputError(fmt::format("{}:{}: {}", path_, line, what));
  }

  std::string found() const {
    if (pos_ >= text_.size()) return "the end of the file";
    return fmt::format("'{}'", text_.substr(pos_, 1));
  }

  void open() {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != '[')
      fail(line_, fmt::format("expected a JSON list of jobs ('['), found {}", found()));
    ++pos_;
  }

  // The next job object's text and first line; std::nullopt after the list's last one.
  std::optional<std::string_view> next(size_t& line, size_t& begin) {
    skip_space();
    if (!first_) {
      if (pos_ < text_.size() && text_[pos_] == ']') return close();
      if (pos_ >= text_.size() || text_[pos_] != ',')
        fail(line_, fmt::format("expected ',' or ']' after a job object, found {} (a truncated "
                                "file?)",
                                found()));
      ++pos_;
      skip_space();
    } else if (pos_ < text_.size() && text_[pos_] == ']') {
      return close();
    }
    first_ = false;
    if (pos_ >= text_.size() || text_[pos_] != '{')
      fail(line_, fmt::format("expected a job object ('{{'), found {}", found()));
    line = line_;
    begin = pos_;
    size_t depth = 0;
    bool in_string = false, escaped = false;
    for (; pos_ < text_.size(); ++pos_) {
      const char c = text_[pos_];
      if (c == '\n') ++line_;
      if (in_string) {
        if (escaped) {
          escaped = false;
        } else if (c == '\\') {
          escaped = true;
        } else if (c == '"') {
          in_string = false;
        }
      } else if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '[') {
        if (++depth > kMaxDepth)
          fail(line_, fmt::format("a job object nested deeper than {} levels", kMaxDepth));
      } else if ((c == '}' || c == ']') && --depth == 0) {
        ++pos_;
        return text_.substr(begin, pos_ - begin);
      }
    }
    fail(line,
         "the job object that starts here is not closed before the end of the file (a "
         "truncated file?)");
  }

 private:
  std::string_view text_;
  const std::string& path_;
  size_t pos_ = 0;
  size_t line_ = 1;
  bool first_ = true;

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\n')) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
  }

  std::nullopt_t close() {
    ++pos_;
    skip_space();
    if (pos_ < text_.size())
      fail(line_,
           fmt::format("expected the end of the file after the list of jobs, found {}", found()));
    return std::nullopt;
  }
};

// One job object's fields, with errors that name the job and the key.
class JobObject {
 public:
  JobObject(const json& j, std::string where) : j_(j), where_(std::move(where)) {}

  [[noreturn]] void fail(std::string_view key, std::string_view expected, const json& found) const {
    throw InputError(fmt::format("{}: {}key '{}': expected {}, found {}", where_,
                                 id_.empty() ? std::string() : fmt::format("job '{}': ", id_), key,
                                 expected, shown(found)));
  }

  const std::string& id() const { return id_; }
  const std::string& where() const { return where_; }

  void read_id() {
    const json* v = find(j_, "jobid");
    if (v == nullptr)
      throw InputError(
          fmt::format("{}: key 'jobid': expected the job's id (a string), found no "
                      "such key",
                      where_));
    if (!v->is_string() || v->get_ref<const std::string&>().empty())
      fail("jobid", "the job's id (a string)", *v);
    id_ = v->get<std::string>();
  }

  // A member, or nullptr when it is absent.
  static const json* find(const json& object, std::string_view key) {
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }

  // A time value: std::nullopt when absent, null, "" or "None" (the README's missing times).
  std::optional<double> time(const json& object, std::string_view key,
                             std::string_view label) const {
    const json* v = find(object, key);
    if (v == nullptr || v->is_null()) return std::nullopt;
    if (!v->is_string()) fail(label, "a time \"YYYY-MM-DD HH:MM:SS\"", *v);
    const std::string& text = v->get_ref<const std::string&>();
    if (text.empty() || text == "None") return std::nullopt;
    std::string error;
    const std::optional<double> t = parse_trace_time(text, error);
    if (!t) fail(label, "a time \"YYYY-MM-DD HH:MM:SS\"", *v);
    return t;
  }

  const json& root() const { return j_; }

 private:
  const json& j_;
  std::string where_;
  std::string id_;
};

struct Attempt {
  std::optional<double> start, end;
  const json* detail = nullptr;
  size_t index = 0;
};

// Adds the job to `jobs`, or counts why it is skipped.
void read_philly_job(const JobObject& job, const PhillyOptions& options, JobCollector& jobs) {
  const json& j = job.root();
  const std::optional<double> submitted = job.time(j, "submitted_time", "submitted_time");
  const json* attempts = JobObject::find(j, "attempts");
  if (attempts != nullptr && !attempts->is_null() && !attempts->is_array())
    job.fail("attempts", "a list of attempts", *attempts);
  std::vector<Attempt> read;
  if (attempts != nullptr && attempts->is_array()) {
    for (size_t i = 0; i < attempts->size(); ++i) {
      const json& a = (*attempts)[i];
      const std::string label = fmt::format("attempts[{}]", i);
      if (!a.is_object()) job.fail(label, "an attempt object", a);
      Attempt at;
      at.index = i;
      at.start = job.time(a, "start_time", label + ".start_time");
      at.end = job.time(a, "end_time", label + ".end_time");
      if (at.start && at.end && *at.end < *at.start)
        job.fail(label + ".end_time",
                 fmt::format("a time at or after start_time ({})", shown(a["start_time"])),
                 a["end_time"]);
      at.detail = JobObject::find(a, "detail");
      read.push_back(at);
    }
  }
  const json* vc = JobObject::find(j, "vc");
  if (vc != nullptr && !vc->is_null() && !vc->is_string())
    job.fail("vc", "the virtual cluster's id (a string)", *vc);
  if (!submitted) return jobs.skip("no submitted_time");
  if (read.empty()) return jobs.skip("no attempts");
  // README: "If a job has a None value for its last attempt's end_time, the job was still
  // running at the time the snapshot was taken": its run time is unknown.
  if (!read.back().end) return jobs.skip("running at snapshot");
  const auto used =
      std::find_if(read.rbegin(), read.rend(), [](const Attempt& a) { return a.start && a.end; });
  if (used == read.rend()) return jobs.skip("no attempt times");
  double run_s = *used->end - *used->start;
  if (options.run_time == PhillyRunTime::kAllAttempts) {
    run_s = 0;
    for (const Attempt& a : read)
      if (a.start && a.end) run_s += *a.end - *a.start;
  }
  const std::string label = fmt::format("attempts[{}].detail", used->index);
  const json* detail = used->detail;
  if (detail != nullptr && !detail->is_null() && !detail->is_array())
    job.fail(label, "a list of machines", *detail);
  if (detail == nullptr || !detail->is_array() || detail->empty()) return jobs.skip("no machines");
  size_t most = 0, least = SIZE_MAX;
  for (size_t m = 0; m < detail->size(); ++m) {
    const json& machine = (*detail)[m];
    const json* gpus = machine.is_object() ? JobObject::find(machine, "gpus") : nullptr;
    if (gpus == nullptr || !gpus->is_array())
      job.fail(fmt::format("{}[{}].gpus", label, m), "a list of GPUs", gpus ? *gpus : machine);
    most = std::max(most, gpus->size());
    least = std::min(least, gpus->size());
  }
  if (run_s == 0) return jobs.skip("zero duration");
  if (most == 0 && !jobs.keep_cpu_only_job()) return;
  if (least != most) jobs.adjust("machines with different gpu counts");
  JobSpec spec;
  spec.name = job.id();
  spec.duration_s = run_s;
  // The collector refuses more than kMaxJobWorkers workers or kMaxGpusPerNode GPUs; the clamps
  // only keep the conversions defined.
  spec.workers = static_cast<int>(std::min<size_t>(detail->size(), INT32_MAX));
  spec.worker.gpu_count = static_cast<int>(std::min<size_t>(most, INT32_MAX));
  if (vc != nullptr && vc->is_string()) spec.queue = vc->get<std::string>();
  jobs.add(std::move(spec), *submitted, job.where());
}

}  // namespace

std::vector<JobSpec> read_philly_jobs(const std::string& path, const PhillyOptions& options,
                                      JobImportCounts* counts) {
  const std::string text = read_job_trace_text(path);
  ListScanner list(text, path);
  list.open();
  JobCollector jobs(path, options, counts);
  size_t line = 0, begin = 0;
  while (const std::optional<std::string_view> object = list.next(line, begin)) {
    jobs.count_record();
    json j;
    try {
      j = parse_bounded_json(*object, JsonLimits{.max_depth = kMaxDepth});
    } catch (const JsonLimitError& e) {
      // The failing byte's line and column in the file.
      const size_t at = begin + std::min(e.offset(), object->size());
      const std::string_view before = std::string_view(text).substr(0, at);
      const size_t newlines =
          static_cast<size_t>(std::count(object->begin(), object->begin() + (at - begin), '\n'));
      const size_t line_start = at == 0 ? 0 : before.rfind('\n') + 1;  // npos + 1 == 0
      const size_t col = at - line_start + 1;
      // nlohmann's text places the error within the object ("[json.exception.parse_error.101]
      // parse error at line 2, column 10: ..."); the file's line and column replace that.
      std::string_view why = e.what();
      if (const size_t colon = why.find(": ");
          why.starts_with("[json.exception.") && colon != std::string_view::npos)
        why.remove_prefix(colon + 2);
      throw InputError(fmt::format("{}:{}:{}: a job object that is not valid JSON: {}", path,
                                   line + newlines, col, why));
    }
    JobObject job(j, fmt::format("{}:{}", path, line));
    job.read_id();
    read_philly_job(job, options, jobs);
  }
  return jobs.finish();
}

}  // namespace slicelab
