#include "reports/report_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "reports/csv_table.h"
#include "reports/json_reader.h"
#include "reports/plan_json_check.h"
#include "reports/summary_json_check.h"
#include "workloads/text_file.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// Absent is fine (a plan folder has no summary.json); anything else present is read, so that a
// FIFO or a folder in its place is refused by read_text_file rather than silently skipped.
bool present(const fs::path& p) {
  std::error_code ec;
  return fs::symlink_status(p, ec).type() != fs::file_type::not_found && !ec;
}

// The file checked against its format (`check`), so that every figure read later has the
// type the format gives it.
std::optional<ojson> read_json(const fs::path& p, void (*check)(const JsonFile&)) {
  if (!present(p)) return std::nullopt;
  JsonFile f(p.string());
  check(f);
  return f.take_root();
}

std::optional<CsvTable> read_csv(const fs::path& p) {
  if (!present(p)) return std::nullopt;
  return parse_csv(read_text_file(p.string(), kMaxCsvBytes), p.string());
}

size_t need_column(const CsvTable& t, std::string_view name, const fs::path& p) {
  const auto c = t.column(name);
  if (!c) throw std::runtime_error(fmt::format("{}: no column '{}'", p.string(), name));
  return *c;
}

// The per-policy entries of one file, in first-appearance order after the summary's order
// seeded first, found by name through a hash index: a linear search per row made a report of
// 40,000 policies with a pods.csv take 15 s (quadratic in the policies).
template <typename T>
class PolicyEntries {
 public:
  PolicyEntries(std::vector<T>& list, const std::vector<std::string>& order) : list_(list) {
    index_.reserve(order.size());
    for (const std::string& p : order) at(p);
  }
  T& at(const std::string& policy) {
    const auto [it, fresh] = index_.try_emplace(policy, list_.size());
    if (fresh) {
      list_.emplace_back();
      list_.back().policy = policy;
    }
    return list_[it->second];
  }

 private:
  std::vector<T>& list_;
  std::unordered_map<std::string, size_t> index_;
};

template <typename T, typename Fn>
void drop_empty(std::vector<T>& list, Fn empty) {
  list.erase(std::remove_if(list.begin(), list.end(), empty), list.end());
}

}  // namespace

std::string reason_kind(std::string_view reason) {
  // Reasons carry detail per pod ("out of memory on a100-0 GPU 1: needs 20480 MiB, ..."); the
  // report counts kinds, so keep the leading phrase only.
  size_t end = reason.size();
  for (const std::string_view cut :
       {std::string_view(":"), std::string_view(" ("), std::string_view(" on ")})
    end = std::min(end, reason.find(cut));
  std::string_view kind = reason.substr(0, end);
  while (!kind.empty() && kind.back() == ' ') kind.remove_suffix(1);
  return kind.empty() ? "no reason given" : std::string(kind);
}

namespace {

void read_pods(ReportData& d, const fs::path& p, const std::vector<std::string>& order) {
  const auto t = read_csv(p);
  if (!t) return;
  const size_t policy = need_column(*t, "policy", p), status = need_column(*t, "status", p),
               queue = need_column(*t, "queue_delay_s", p), jct = need_column(*t, "jct_s", p);
  const auto reason = t->column("reason");
  const auto isolation = t->column("isolation_error");
  d.has_isolation_column = isolation.has_value();
  PolicyEntries<PolicyPods> entries(d.pods, order);
  for (const auto& row : t->rows) {
    PolicyPods& e = entries.at(row[policy]);
    if (const auto v = csv_number(row[queue])) e.queue_delay_s.push_back(*v);
    if (const auto v = csv_number(row[jct])) e.jct_s.push_back(*v);
    if (isolation)
      if (const auto v = csv_number(row[*isolation])) e.isolation_error.push_back(*v);
    const std::string& s = row[status];
    if (s == "failed" || s == "unschedulable" || s == "pending") {
      ++e.not_run[s + ": " + reason_kind(reason ? row[*reason] : "")];
    }
  }
}

void read_timeseries(ReportData& d, const fs::path& p, const std::vector<std::string>& order) {
  const auto t = read_csv(p);
  if (!t) return;
  const size_t policy = need_column(*t, "policy", p), time = need_column(*t, "time_s", p),
               alloc = need_column(*t, "allocation_ratio", p),
               frag = need_column(*t, "fragmentation_ratio", p);
  const auto sm = t->column("sm_utilization");
  PolicyEntries<PolicyTimeseries> entries(d.timeseries, order);
  for (const auto& row : t->rows) {
    const auto x = csv_number(row[time]);
    if (!x) continue;
    PolicyTimeseries& e = entries.at(row[policy]);
    e.time_s.push_back(*x);
    e.allocation_ratio.push_back(csv_number(row[alloc]).value_or(0));
    e.fragmentation_ratio.push_back(csv_number(row[frag]).value_or(0));
    e.sm_utilization.push_back(sm ? csv_number(row[*sm]).value_or(0) : 0);
  }
  drop_empty(d.timeseries, [](const PolicyTimeseries& e) { return e.time_s.empty(); });
}

void read_fill(ReportData& d, const fs::path& p, const std::vector<std::string>& order) {
  const auto t = read_csv(p);
  if (!t) return;
  const size_t policy = need_column(*t, "policy", p), arrived = need_column(*t, "arrived_ratio", p),
               allocated = need_column(*t, "allocated_ratio", p),
               fragmented = need_column(*t, "fragmented_ratio", p),
               failed = need_column(*t, "failed_ratio", p);
  PolicyEntries<PolicyFill> entries(d.fill, order);
  for (const auto& row : t->rows) {
    PolicyFill& e = entries.at(row[policy]);
    e.arrived_ratio.push_back(csv_number(row[arrived]).value_or(0));
    e.allocated_ratio.push_back(csv_number(row[allocated]).value_or(0));
    e.fragmented_ratio.push_back(csv_number(row[fragmented]).value_or(0));
    e.failed_ratio.push_back(csv_number(row[failed]).value_or(0));
  }
  drop_empty(d.fill, [](const PolicyFill& e) { return e.arrived_ratio.empty(); });
}

// A multi-seed folder keeps per-pod files in seed-<n>/: take the summary's first seed, else the
// lowest-numbered seed folder.
std::string detail_folder(const fs::path& dir, const std::optional<ojson>& summary) {
  if (fs::is_regular_file(dir / "pods.csv") || fs::is_regular_file(dir / "timeseries.csv"))
    return "";
  if (summary && summary->contains("seeds") && (*summary)["seeds"].is_array() &&
      !(*summary)["seeds"].empty() && (*summary)["seeds"][0].is_number_unsigned()) {
    std::string name = fmt::format("seed-{}", (*summary)["seeds"][0].get<uint64_t>());
    if (fs::is_directory(dir / name)) return name;
  }
  std::optional<std::pair<uint64_t, std::string>> lowest;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (!e.is_directory() || name.rfind("seed-", 0) != 0) continue;
    try {
      size_t used = 0;
      const uint64_t n = std::stoull(name.substr(5), &used);
      if (used == name.size() - 5 && (!lowest || n < lowest->first)) lowest = {{n, name}};
    } catch (const std::exception&) {
      // not a seed folder
    }
  }
  return lowest ? lowest->second : "";
}

}  // namespace

bool any_capped_pod(const ReportData& data) {
  return data.has_isolation_column &&
         std::any_of(data.pods.begin(), data.pods.end(),
                     [](const PolicyPods& p) { return !p.isolation_error.empty(); });
}

std::vector<std::string> summary_policies(const ReportData& data) {
  std::vector<std::string> out;
  if (!data.summary || !data.summary->contains("policies")) return out;
  for (const auto& p : (*data.summary)["policies"])
    if (p.contains("name") && p["name"].is_string()) out.push_back(p["name"].get<std::string>());
  return out;
}

ReportData load_report_data(const fs::path& dir) {
  if (!fs::is_directory(dir))
    throw std::runtime_error(fmt::format("{}: no such results folder", dir.string()));
  ReportData d;
  d.dir = dir;
  d.summary = read_json(dir / "summary.json", check_summary_json);
  d.plan = read_json(dir / "plan.json", check_plan_json);
  if (!d.summary && !d.plan)
    throw std::runtime_error(fmt::format(
        "{}: not a results folder (no summary.json or plan.json; run `slicelab compare` or "
        "`slicelab plan` first)",
        dir.string()));
  d.detail_from = detail_folder(dir, d.summary);
  const fs::path detail = d.detail_from.empty() ? dir : dir / d.detail_from;
  const std::vector<std::string> order = summary_policies(d);
  read_pods(d, detail / "pods.csv", order);
  read_timeseries(d, detail / "timeseries.csv", order);
  read_fill(d, detail / "fill.csv", order);
  return d;
}

}  // namespace slicelab
