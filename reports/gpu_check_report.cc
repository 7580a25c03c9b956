#include "reports/gpu_check_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "reports/atomic_folder.h"
#include "reports/csv_table.h"
#include "workloads/input_error.h"
#include "workloads/text_file.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// ---- reading the raw folder ----

std::optional<std::string> read_raw(const fs::path& raw, const std::string& name) {
  std::error_code ec;
  if (!fs::is_regular_file(raw / name, ec)) return std::nullopt;
  return read_text_file((raw / name).string(), kMaxTextBytes);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(line);
  }
  return out;
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, sep)) out.push_back(field);
  if (!line.empty() && line.back() == sep) out.emplace_back();
  return out;
}

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// "key=value" lines; '#' comments and blank lines ignored.
std::map<std::string, std::string> key_values(const std::string& text) {
  std::map<std::string, std::string> out;
  for (const std::string& line : lines_of(text)) {
    if (line.empty() || line[0] == '#') continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

std::optional<double> number(const std::string& text) {
  return csv_number(text);
}

std::optional<double> json_number(const Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

// A figure's value: the number, or null where it could not be read.
Json value(std::optional<double> v) {
  return v ? Json(*v) : Json(nullptr);
}

// ---- formatting for the Markdown tables ----

std::string fixed(std::optional<double> v, int digits) {
  if (!v || !std::isfinite(*v)) return "-";
  return fmt::format("{:.{}f}", *v, digits);
}

std::string signed_fixed(std::optional<double> v, int digits) {
  if (!v || !std::isfinite(*v)) return "-";
  return fmt::format("{:+.{}f}", *v, digits);
}

// Per-unit times in the unit that reads best: ns below 10 µs, µs below 10 ms, else ms.
std::string duration_ns(std::optional<double> ns) {
  if (!ns || !std::isfinite(*ns)) return "-";
  const double a = std::abs(*ns);
  if (a < 1e4) return fmt::format("{:.0f} ns", *ns);
  if (a < 1e7) return fmt::format("{:.1f} µs", *ns / 1e3);
  return fmt::format("{:.2f} ms", *ns / 1e6);
}

std::string cell(std::string text) {
  for (char& c : text)
    if (c == '|' || c == '\n' || c == '\r' || c == '\t') c = ' ';
  return text;
}

// A Markdown table; `align` holds 'l' or 'r' per column (missing: left).
std::string table(const std::vector<std::string>& head,
                  const std::vector<std::vector<std::string>>& rows,
                  const std::string& align = "") {
  std::string out = "|";
  for (const std::string& h : head) out += " " + h + " |";
  out += "\n|";
  for (size_t i = 0; i < head.size(); ++i)
    out += i < align.size() && align[i] == 'r' ? "---:|" : "---|";
  out += "\n";
  for (const auto& r : rows) {
    out += "|";
    for (const std::string& c : r) out += " " + cell(c) + " |";
    out += "\n";
  }
  return out;
}

// ---- the steps and each figure's status ----

struct Step {
  std::string name, status, detail;
  std::optional<double> budget_s, seconds;
};

class Figure {
 public:
  Figure(std::string name, const std::map<std::string, Step>& steps,
         std::vector<std::string> step_names)
      : name_(std::move(name)) {
    j_["figure"] = name_;
    j_["step"] = step_names.size() == 1 ? Json(step_names[0]) : Json(step_names);
    status_ = "measured";
    for (const std::string& s : step_names) {
      const auto it = steps.find(s);
      if (it == steps.end()) {
        set_not_measured("missing", fmt::format("step {} did not run (not in steps.tsv)", s));
        break;
      }
      const Step& st = it->second;
      if (st.status == "ok") continue;
      const std::string what = st.status == "timeout" ? "timed out" : st.status;
      set_not_measured(what, fmt::format("step {}: {}", s, st.detail.empty() ? what : st.detail));
      break;
    }
  }
  // The steps behind the figure finished: what they should have left is expected.
  bool expected() const { return status_ == "measured"; }
  // An output a finished step should have left is missing or unreadable.
  void unparsed(const std::string& why) {
    if (status_ == "measured") {
      status_ = "unparsed";
      reason_ = why;
    } else if (reason_.find(why) == std::string::npos) {
      notes_.push_back(why);
    }
  }
  // Measured, but there was nothing to measure here (no MIG instances, every test skipped).
  void skipped(const std::string& why) {
    if (status_ == "measured") set_not_measured("skipped", why);
  }
  Json& json() { return j_; }
  const std::string& status() const { return status_; }
  const std::string& reason() const { return reason_; }
  const std::string& name() const { return name_; }

  Json finish() {
    Json out;
    out["figure"] = j_["figure"];
    out["step"] = j_["step"];
    out["status"] = status_;
    if (!reason_.empty()) out["reason"] = reason_;
    if (!notes_.empty()) out["notes"] = notes_;
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (it.key() != "figure" && it.key() != "step") out[it.key()] = it.value();
    return out;
  }
  // The line under a section's heading when it was not measured.
  std::string status_line() const {
    if (status_ == "measured") return "";
    return fmt::format("**{}**: {}\n\n", status_, reason_);
  }

 private:
  void set_not_measured(const std::string& status, const std::string& why) {
    status_ = status;
    reason_ = why;
  }
  std::string name_, status_, reason_;
  std::vector<std::string> notes_;
  Json j_ = Json::object();
};

// ---- the figures ----

struct Context {
  fs::path raw;
  std::map<std::string, Step> steps;
  std::vector<Step> step_order;
  std::map<std::string, std::string> env;
  bool fake = false;
};

Json read_json_file(const fs::path& raw, const std::string& name, Figure& f) {
  std::optional<std::string> text;
  try {
    text = read_raw(raw, name);
  } catch (const std::exception& e) {
    f.unparsed(fmt::format("{}: {}", name, e.what()));
    return nullptr;
  }
  if (!text) {
    f.unparsed(fmt::format("{} is missing", name));
    return nullptr;
  }
  try {
    return Json::parse(*text);
  } catch (const std::exception& e) {
    f.unparsed(fmt::format("{} is not JSON: {}", name, e.what()));
    return nullptr;
  }
}

std::optional<std::string> read_text(const fs::path& raw, const std::string& name, Figure& f) {
  try {
    auto text = read_raw(raw, name);
    if (!text) f.unparsed(fmt::format("{} is missing", name));
    return text;
  } catch (const std::exception& e) {
    f.unparsed(fmt::format("{}: {}", name, e.what()));
    return std::nullopt;
  }
}

std::vector<std::string> raw_files_matching(const fs::path& raw, const std::string& prefix,
                                            const std::string& suffix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(raw, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string n = it->path().filename().string();
    if (n.size() >= prefix.size() + suffix.size() && n.starts_with(prefix) && n.ends_with(suffix) &&
        it->is_regular_file(ec))
      out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct Section {
  Json json;
  std::string markdown;
};

Section environment_figure(Context& c) {
  Figure f("environment", c.steps, {"environment"});
  Json values = Json::object();
  for (const auto& [k, v] : c.env) values[k] = v;
  f.json()["values"] = values;
  if (f.expected())
    for (const char* key : {"mode", "gpu", "driver", "cuda_driver", "cuda_toolkit"})
      if (!c.env.count(key) || c.env.at(key).empty())
        f.unparsed(fmt::format("environment.txt has no {}=", key));
  const auto get = [&](const char* k) {
    return c.env.count(k) && !c.env.at(k).empty() ? c.env.at(k) : std::string("-");
  };
  std::string md = "## Environment\n\n" + f.status_line();
  md += table({"", ""}, {{"GPU", get("gpu")},
                         {"GPU memory", get("memory_mib") + " MiB"},
                         {"GPUs on the machine", get("gpus")},
                         {"driver", get("driver")},
                         {"CUDA (driver)", get("cuda_driver")},
                         {"CUDA (toolkit that built the kernels)", get("cuda_toolkit")},
                         {"MIG mode", get("mig_mode")},
                         {"compute mode", get("compute_mode")},
                         {"persistence mode", get("persistence_mode")},
                         {"device file held open by the script", get("device_held_open")},
                         {"one kernel process, start to exit (s)", get("kernel_process_s")},
                         {"slicelab", get("commit")},
                         {"date", get("date")}});
  return {f.finish(), md + "\n"};
}

Section steps_figure(Context& c) {
  Figure f("steps", c.steps, {});
  Json rows = Json::array();
  std::vector<std::vector<std::string>> md_rows;
  double budget = 0, spent = 0;
  std::map<std::string, int> counts;
  for (const Step& s : c.step_order) {
    rows.push_back({{"step", s.name},
                    {"budget_s", value(s.budget_s)},
                    {"status", s.status},
                    {"seconds", value(s.seconds)},
                    {"detail", s.detail}});
    md_rows.push_back(
        {s.name, fixed(s.budget_s, 0) + " s", s.status, fixed(s.seconds, 1) + " s", s.detail});
    budget += s.budget_s.value_or(0);
    spent += s.seconds.value_or(0);
    ++counts[s.status];
  }
  f.json()["rows"] = rows;
  f.json()["budget_s"] = budget;
  f.json()["seconds"] = spent;
  f.json()["counts"] = counts;
  std::string md = "## Steps\n\n";
  md += fmt::format(
      "{} steps: {} ok, {} skipped, {} failed, {} timed out; {:.0f} s of the {:.0f} s "
      "budgeted.\n\n",
      c.step_order.size(), counts["ok"], counts["skipped"], counts["failed"], counts["timeout"],
      spent, budget);
  md += table({"step", "budget", "status", "time", "detail"}, md_rows, "lrlrl");
  return {f.finish(), md + "\n"};
}

Section overhead_calls_figure(Context& c) {
  Figure f("overhead-calls", c.steps, {"overhead-calls"});
  const std::map<std::string, std::string> calls{{"LaunchKernel", "cuLaunchKernel"},
                                                 {"MemAllocFree", "cuMemAlloc_v2 + cuMemFree_v2"},
                                                 {"GetProcAddress", "cuGetProcAddress_v2"}};
  Json rows = Json::array();
  std::vector<std::vector<std::string>> md_rows;
  std::set<std::string> seen;
  if (const auto text = read_text(c.raw, "overhead-calls.txt", f)) {
    for (const std::string& line : lines_of(*text)) {
      const auto w = words(line);
      if (w.empty() || w[0][0] == '#') continue;
      if (w.size() < 6 || !calls.count(w[0])) {
        f.unparsed(fmt::format("overhead-calls.txt: unexpected line '{}'", line));
        continue;
      }
      const auto direct = number(w[1]), through = number(w[2]), added = number(w[3]),
                 ratio = number(w[4]), rounds = number(w[5]);
      if (!direct || !through || !added || !ratio || !rounds) {
        f.unparsed(fmt::format("overhead-calls.txt: a figure of '{}' is not a number", line));
        continue;
      }
      seen.insert(w[0]);
      rows.push_back({{"op", w[0]},
                      {"call", calls.at(w[0])},
                      {"bare_ns", *direct},
                      {"interposed_ns", *through},
                      {"added_ns", *added},
                      {"added_ratio", *ratio},
                      {"rounds", *rounds}});
      md_rows.push_back({calls.at(w[0]), fixed(direct, 1), fixed(through, 1), fixed(added, 1),
                         fixed(*ratio * 100, 1) + "%"});
    }
    if (f.expected())
      for (const auto& [op, call] : calls)
        if (!seen.count(op)) f.unparsed(fmt::format("overhead-calls.txt has no {} line", op));
  }
  // What limiter_overhead said about its setup (the driver, the caps), from its log.
  std::string setup;
  if (const auto log = read_raw(c.raw, "logs/overhead-calls.log"))
    for (const std::string& line : lines_of(*log))
      if (line.starts_with("limiter_overhead: driver")) setup = line.substr(18);
  f.json()["driver"] = c.fake ? "fake (tests/fakes)" : "real";
  f.json()["setup"] = setup;
  f.json()["measure"] =
      "median over rounds of the thread's CPU time per call, interposed minus direct, in one "
      "process (bench/limiter_overhead --paired)";
  f.json()["rows"] = rows;
  std::string md = "## Interposer overhead per call\n\n" + f.status_line();
  md += fmt::format(
      "On the {} driver: the same calls straight to the driver and through the interposer in "
      "one process, the median over rounds of the thread's CPU time per call "
      "(`bench/limiter_overhead --paired`){}.\n\n",
      c.fake ? "fake" : "real", setup.empty() ? "" : "; " + setup);
  md += table({"call", "bare ns", "interposed ns", "added ns", "added"}, md_rows, "lrrrr");
  return {f.finish(), md + "\n"};
}

Section overhead_kernels_figure(Context& c) {
  Figure f("overhead-kernels", c.steps, {"overhead-kernels"});
  Json rows = Json::array();
  std::vector<std::vector<std::string>> md_rows;
  const Json j = read_json_file(c.raw, "overhead-kernels.json", f);
  std::set<std::string> seen;
  if (j.is_object() && j.contains("kernels") && j["kernels"].is_array()) {
    for (const Json& k : j["kernels"]) {
      const std::string name = k.value("kernel", std::string());
      const auto bare = k.contains("per_unit_ns_plain")
                            ? json_number(k["per_unit_ns_plain"], "median")
                            : std::nullopt;
      const auto through = k.contains("per_unit_ns_interposer")
                               ? json_number(k["per_unit_ns_interposer"], "median")
                               : std::nullopt;
      const auto added = json_number(k, "overhead_ns");
      const auto percent = json_number(k, "overhead_percent");
      if (name.empty() || !bare || !through || !added || !percent) {
        f.unparsed(fmt::format("overhead-kernels.json: a figure of kernel '{}' is missing", name));
        continue;
      }
      seen.insert(name);
      rows.push_back({{"kernel", name},
                      {"units_per_run", k.value("units_per_run", 0L)},
                      {"repetitions", k["per_unit_ns_plain"].value("n", 0)},
                      {"bare_per_unit_ns", *bare},
                      {"interposed_per_unit_ns", *through},
                      {"added_per_unit_ns", *added},
                      {"added_percent", *percent}});
      md_rows.push_back({name, duration_ns(bare), duration_ns(through), duration_ns(added),
                         signed_fixed(percent, 2) + "%"});
    }
  } else if (!j.is_null()) {
    f.unparsed("overhead-kernels.json has no kernels list");
  }
  if (f.expected())
    for (const char* k : {"inference-mix", "fma"})
      if (!seen.count(k)) f.unparsed(fmt::format("overhead-kernels.json has no {} kernel", k));
  f.json()["rows"] = rows;
  std::string md = "## Interposer overhead end to end\n\n" + f.status_line();
  md +=
      "Each kernel alone, without and with the interposer preloaded (no caps), alternately; "
      "the median time per unit over the repetitions (`slicelab kernels overhead`).\n\n";
  md += table({"kernel", "bare", "interposed", "added", "added %"}, md_rows, "lrrrr");
  return {f.finish(), md + "\n"};
}

// "isolation-medium-2.json" -> "medium".
std::string length_of(const std::string& file) {
  const std::string rest = file.substr(std::string("isolation-").size());
  return rest.substr(0, rest.find('-'));
}

int length_rank(const std::string& length) {
  if (length == "short") return 0;
  if (length == "medium") return 1;
  if (length == "long") return 2;
  return 3;
}

Section isolation_figure(Context& c, Json& memory_isolation) {
  Figure f("isolation", c.steps, {"isolation"});
  std::vector<std::string> files = raw_files_matching(c.raw, "isolation-", ".json");
  std::stable_sort(files.begin(), files.end(), [](const std::string& a, const std::string& b) {
    return length_rank(length_of(a)) < length_rank(length_of(b));
  });
  if (files.empty()) f.unparsed("no isolation-<length>-<n>.json file");
  Json rows = Json::array();
  std::vector<std::vector<std::string>> md_rows;
  struct Errors {
    double sum = 0, max = 0;
    int n = 0;
    std::string kernel;
  };
  std::map<std::string, Errors> per_length;  // summarised short, medium, long below
  std::map<std::string, std::set<long>> caps_seen;
  Json pair_totals = Json::array();
  for (const std::string& file : files) {
    const Json j = read_json_file(c.raw, file, f);
    if (!j.is_object()) continue;
    const std::string length = length_of(file);
    const std::string kernel = j.value("kernel", std::string("?"));
    const double scale = j.value("scale", 1.0);
    const auto solo = json_number(j, "solo_per_unit_ns");
    const std::string label = scale == 1 ? kernel : fmt::format("{} ×{}", kernel, scale);
    if (!solo) f.unparsed(fmt::format("{}: no solo_per_unit_ns", file));
    if (!j.contains("mechanisms") || !j["mechanisms"].is_array()) {
      f.unparsed(fmt::format("{}: no mechanisms", file));
      continue;
    }
    for (const Json& m : j["mechanisms"]) {
      if (m.value("mechanism", std::string()) != "interposer") continue;
      if (m.contains("memory_isolation")) memory_isolation = m["memory_isolation"];
      if (!m.contains("clients") || !m["clients"].is_array()) {
        f.unparsed(fmt::format("{}: the interposer has no clients", file));
        continue;
      }
      double together = 0;  // the pair's achieved shares summed: what time-slicing left them
      for (const Json& cl : m["clients"]) {
        together += json_number(cl, "achieved_share").value_or(0);
      }
      pair_totals.push_back({{"length", length},
                             {"source", file},
                             {"caps", m["clients"].size()},
                             {"achieved_total", together}});
      for (const Json& cl : m["clients"]) {
        const auto cap = json_number(cl, "configured_share");
        const auto achieved = json_number(cl, "achieved_share");
        const auto err = json_number(cl, "error");
        const auto per_unit = json_number(cl, "per_unit_ns");
        if (!cap || !achieved || !err || !per_unit) {
          const std::string why = cl.contains("error") && cl["error"].is_string()
                                      ? cl["error"].get<std::string>()
                                      : std::string("a figure is missing");
          f.unparsed(fmt::format("{}: a client of cap {}: {}", file, fixed(cap, 2), why));
          continue;
        }
        rows.push_back({{"length", length},
                        {"kernel", kernel},
                        {"scale", scale},
                        {"solo_per_unit_ns", value(solo)},
                        {"cap", *cap},
                        {"achieved", *achieved},
                        {"error", *err},
                        {"per_unit_ns", *per_unit},
                        {"source", file}});
        md_rows.push_back({fmt::format("{} ({})", label, length), fixed(*cap * 100, 0) + "%",
                           fixed(*achieved * 100, 1) + "%", fixed(*err * 100, 1) + " pt",
                           duration_ns(solo)});
        Errors& e = per_length[length];
        e.sum += *err;
        e.max = std::max(e.max, *err);
        ++e.n;
        e.kernel = label;
        caps_seen[length].insert(std::lround(*cap * 100));
      }
    }
  }
  if (f.expected()) {
    for (const char* length : {"short", "medium", "long"}) {
      if (!per_length.count(length)) {
        f.unparsed(fmt::format("no client of a {} kernel was measured", length));
        continue;
      }
      for (const long cap : {10L, 30L, 50L, 70L, 90L})
        if (!caps_seen[length].count(cap))
          f.unparsed(fmt::format("no client of the {} kernel at a cap of {}%", length, cap));
    }
  }
  Json summary = Json::array();
  std::vector<std::vector<std::string>> md_summary;
  std::vector<std::pair<std::string, Errors>> ordered(per_length.begin(), per_length.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    return length_rank(a.first) < length_rank(b.first);
  });
  for (const auto& [length, e] : ordered) {
    summary.push_back({{"length", length},
                       {"kernel", e.kernel},
                       {"clients", e.n},
                       {"mean_abs_error", e.sum / e.n},
                       {"max_abs_error", e.max}});
    md_summary.push_back({fmt::format("{} ({})", e.kernel, length), std::to_string(e.n),
                          fixed(e.sum / e.n * 100, 1) + " pt", fixed(e.max * 100, 1) + " pt"});
  }
  f.json()["measure"] =
      "achieved share = the kernel's time per unit alone on the whole GPU / its time per unit "
      "capped beside the other client of its pair; error = |achieved - cap|";
  f.json()["rows"] = rows;
  f.json()["per_length"] = summary;
  f.json()["pair_totals"] = pair_totals;
  std::string md = "## Isolation fidelity (interposer)\n\n" + f.status_line();
  md +=
      "Two clients at once per run, capped at 10/90, 30/70 and 50/50% "
      "(`SLICELAB_SM_LIMIT`); achieved share = time per unit alone on the whole GPU / time "
      "per unit capped (`slicelab kernels isolation`).\n\n";
  md += table({"kernel", "cap", "achieved", "error", "a unit alone"}, md_rows, "lrrrr");
  md += "\n" + table({"kernel", "clients", "mean error", "max error"}, md_summary, "lrrr");
  std::string totals;
  for (const Json& t : pair_totals)
    totals += fmt::format("{}{} {:.0f}%", totals.empty() ? "" : ", ",
                          t["length"].get<std::string>(), t["achieved_total"].get<double>() * 100);
  if (!totals.empty())
    md +=
        "\nThe two clients' achieved shares summed, run by run (what sharing the GPU left them "
        "together; 100% would be no loss): " +
        totals + ".\n";
  return {f.finish(), md + "\n"};
}

Section memory_cap_figure(Context& c, const Json& memory_isolation) {
  Figure f("memory-cap", c.steps, {"memory-cap"});
  Json probes = Json::array();
  std::vector<std::vector<std::string>> md_rows;
  std::optional<double> cap, largest_held, smallest_refused;
  if (const auto text = read_text(c.raw, "memory-cap.tsv", f)) {
    for (const std::string& line : lines_of(*text)) {
      if (line.empty() || line[0] == '#') continue;
      const auto v = split(line, '\t');
      const auto cap_mib = v.size() >= 4 ? number(v[0]) : std::nullopt;
      const auto hold = v.size() >= 4 ? number(v[1]) : std::nullopt;
      const auto exit_code = v.size() >= 4 ? number(v[2]) : std::nullopt;
      if (!cap_mib || !hold || !exit_code) {
        f.unparsed(fmt::format("memory-cap.tsv: unexpected line '{}'", line));
        continue;
      }
      cap = cap_mib;
      // slicelab-kernel's exit codes (docs/kernels.md): 0 done, 5 out of memory.
      const std::string result = *exit_code == 0   ? "held"
                                 : *exit_code == 5 ? "refused (out of memory)"
                                                   : fmt::format("error (exit {})", *exit_code);
      if (*exit_code == 0) largest_held = std::max(largest_held.value_or(0), *hold);
      if (*exit_code == 5)
        smallest_refused = smallest_refused ? std::min(*smallest_refused, *hold) : *hold;
      probes.push_back({{"cap_mib", *cap_mib},
                        {"hold_mib", *hold},
                        {"exit_code", *exit_code},
                        {"result", result},
                        {"detail", v[3]}});
      // The kernel's JSON line: its error when it has one, else that it ran.
      std::string said = v[3];
      try {
        const Json kernel_line = Json::parse(v[3]);
        said = kernel_line.contains("error")
                   ? kernel_line.value("error", std::string()) + ": " +
                         kernel_line.value("detail", std::string())
                   : fmt::format("ran {} unit", kernel_line.value("units", 0));
      } catch (const std::exception&) {
      }
      md_rows.push_back({fixed(cap_mib, 0), fixed(hold, 0), result, said});
    }
  }
  if (f.expected() && (!largest_held || !smallest_refused))
    f.unparsed("memory-cap.tsv has no held and refused probe both");
  f.json()["cap_mib"] = value(cap);
  f.json()["probes"] = probes;
  f.json()["largest_held_mib"] = value(largest_held);
  f.json()["smallest_refused_mib"] = value(smallest_refused);
  f.json()["refused_just_above_cap"] = cap && largest_held && smallest_refused
                                           ? Json(*largest_held >= *cap && *smallest_refused > *cap)
                                           : Json(nullptr);
  f.json()["over_cap_test"] = memory_isolation.is_null() ? Json(nullptr) : memory_isolation;
  // The harness's over-cap test runs in the isolation step: expected only when that finished.
  const auto iso = c.steps.find("isolation");
  if (f.expected() && memory_isolation.is_null() && iso != c.steps.end() &&
      iso->second.status == "ok")
    f.unparsed("no isolation run carried the harness's memory test (memory_isolation)");
  std::string md = "## Memory cap\n\n" + f.status_line();
  md +=
      "`slicelab-kernel launch-storm --hold-mib M` under the interposer with "
      "`SLICELAB_MEMORY_LIMIT` = the cap: which holds the cap lets through.\n\n";
  md += table({"cap MiB", "held MiB", "result", "detail"}, md_rows, "rrll");
  if (cap && largest_held && smallest_refused)
    md += fmt::format(
        "\nLargest hold that ran: {:.0f} MiB; smallest refused: {:.0f} MiB (cap "
        "{:.0f} MiB).\n",
        *largest_held, *smallest_refused, *cap);
  if (memory_isolation.is_object()) {
    const auto mi = memory_isolation;
    md += fmt::format(
        "\nThe harness's over-cap test: a client capped at {} MiB asking for {} MiB {}; its "
        "neighbour {}: **{}**.\n",
        mi.value("cap_mib", 0L), mi.value("over_cap_request_mib", 0L),
        mi.value("over_cap_client_got_oom", false) ? "got out-of-memory"
                                                   : "did NOT get out-of-memory",
        mi.value("neighbours_completed", false) ? "completed" : "did NOT complete",
        mi.value("passed", false) ? "passed" : "failed");
  }
  return {f.finish(), md + "\n"};
}

Section colocation_figure(Context& c) {
  Figure f("colocation", c.steps, {"colocation"});
  Json rows = Json::array();
  std::vector<std::vector<std::string>> md_rows;
  std::set<std::string> modes;
  if (const auto text = read_text(c.raw, "colocation.csv", f)) {
    try {
      const CsvTable t = parse_csv(*text, "colocation.csv");
      const char* cols[] = {"class_a", "class_b",    "mode",      "cap_a",
                            "cap_b",   "slowdown_a", "slowdown_b"};
      std::vector<size_t> at;
      for (const char* col : cols) {
        const auto i = t.column(col);
        if (!i) throw std::runtime_error(fmt::format("colocation.csv has no column {}", col));
        at.push_back(*i);
      }
      for (const auto& r : t.rows) {
        const auto ca = csv_number(r[at[3]]), cb = csv_number(r[at[4]]);
        const auto sa = csv_number(r[at[5]]), sb = csv_number(r[at[6]]);
        if (!ca || !cb || !sa || !sb) {
          f.unparsed(fmt::format("colocation.csv: a figure of {}+{} {} is not a number", r[at[0]],
                                 r[at[1]], r[at[2]]));
          continue;
        }
        modes.insert(r[at[2]]);
        rows.push_back({{"class_a", r[at[0]]},
                        {"class_b", r[at[1]]},
                        {"mode", r[at[2]]},
                        {"cap_a", *ca},
                        {"cap_b", *cb},
                        {"slowdown_a", *sa},
                        {"slowdown_b", *sb}});
        md_rows.push_back({r[at[0]] + " + " + r[at[1]], r[at[2]],
                           fmt::format("{}:{}", fixed(ca, 2), fixed(cb, 2)), fixed(sa, 3),
                           fixed(sb, 3)});
      }
    } catch (const std::exception& e) {
      f.unparsed(e.what());
    }
  }
  // The modes the harness could not run, as it named them on stderr ("skipped mps: why").
  Json skipped = Json::array();
  if (const auto log = read_raw(c.raw, "logs/colocation.log"))
    for (const std::string& line : lines_of(*log))
      if (line.starts_with("skipped ")) skipped.push_back(line.substr(8));
  if (const auto extra = read_raw(c.raw, "colocation-skipped.txt"))
    for (const std::string& line : lines_of(*extra))
      if (!line.empty()) skipped.push_back(line);
  if (f.expected()) {
    for (const char* m : {"time-slice", "interposer", "mps"}) {
      if (modes.count(m)) continue;
      bool named = false;
      for (const Json& s : skipped) named = named || s.get<std::string>().starts_with(m);
      if (!named) f.unparsed(fmt::format("colocation.csv has no {} row and no reason why", m));
    }
  }
  f.json()["measure"] =
      "slowdown = time per unit beside the other kernel / time per unit alone on the whole GPU";
  f.json()["rows"] = rows;
  f.json()["skipped_modes"] = skipped;
  std::string md = "## Co-location slowdowns\n\n" + f.status_line();
  md +=
      "Each pair of kernels at once on the GPU; slowdown = time per unit together / time per "
      "unit alone on the whole GPU (`slicelab kernels colocation`, the CSV `calibrate` "
      "reads).\n\n";
  md += table({"pair", "mode", "caps", "slowdown a", "slowdown b"}, md_rows, "llrrr");
  for (const Json& s : skipped) md += fmt::format("\nskipped {}\n", s.get<std::string>());
  return {f.finish(), md + "\n"};
}

Section calibration_figure(Context& c) {
  Figure f("calibration", c.steps, {"colocation", "calibrate"});
  Json rows = Json::array();
  std::vector<std::vector<std::string>> md_rows;
  const Json j = read_json_file(c.raw, "calibrate.json", f);
  Json issues = Json::array();
  if (j.is_object()) {
    if (j.contains("issues")) issues = j["issues"];
    if (!j.contains("modes") || !j["modes"].is_array()) f.unparsed("calibrate.json has no modes");
    for (const Json& m : j.value("modes", Json::array())) {
      const auto rws = json_number(m, "rows"), a = json_number(m, "a_bandwidth"),
                 b = json_number(m, "b_launch"), rms = json_number(m, "rms_residual"),
                 ex = json_number(m, "explained");
      if (!rws || !a || !b || !rms || !ex) {
        f.unparsed("calibrate.json: a figure of a mode is missing");
        continue;
      }
      rows.push_back({{"mode", m.value("mode", std::string())},
                      {"rows", *rws},
                      {"a_bandwidth", *a},
                      {"b_launch", *b},
                      {"rms_residual", *rms},
                      {"explained", *ex}});
      md_rows.push_back({m.value("mode", std::string()), fixed(rws, 0), fmt::format("{:.4g}", *a),
                         fmt::format("{:.4g}", *b), fmt::format("{:.4g}", *rms),
                         fixed(*ex * 100, 1) + "%"});
    }
    if (f.expected() && j.contains("written") && j["written"].is_null())
      f.unparsed("calibrate wrote no calibration (see its issues)");
  }
  f.json()["rows"] = rows;
  f.json()["issues"] = issues;
  f.json()["classes"] = "calibration/kernel-classes.yaml (the micro-kernels as workload classes)";
  std::string md = "## Calibration\n\n" + f.status_line();
  const bool written = j.is_object() && j.contains("written") && !j["written"].is_null();
  md += written ? "`slicelab calibrate colocation.csv --classes calibration/kernel-classes.yaml`, "
                  "written to `calibration.yaml` in this folder.\n\n"
                : "`slicelab calibrate colocation.csv --classes calibration/kernel-classes.yaml`: "
                  "the fit below, which wrote no calibration (its errors follow the table).\n\n";
  md += table({"mode", "rows", "a_bandwidth", "b_launch", "rms residual", "explained"}, md_rows,
              "lrrrrr");
  for (const Json& i : issues)
    md += fmt::format("\n{}: {}\n", i.value("level", std::string("note")),
                      i.value("text", std::string()));
  return {f.finish(), md + "\n"};
}

std::map<std::string, std::vector<std::string>> pods_of(const std::string& text,
                                                        const std::string& what,
                                                        const std::string& policy,
                                                        std::vector<std::string>& order) {
  const CsvTable t = parse_csv(text, what);
  const auto pol = t.column("policy"), pod = t.column("pod"), cls = t.column("class"),
             status = t.column("status"), jct = t.column("jct_s"), reason = t.column("reason");
  if (!pol || !pod || !status || !jct)
    throw std::runtime_error(what + " has no policy, pod, status or jct_s column");
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& r : t.rows) {
    if (r[*pol] != policy) continue;
    if (!out.count(r[*pod])) order.push_back(r[*pod]);
    out[r[*pod]] = {cls ? r[*cls] : std::string(), r[*status], r[*jct],
                    reason ? r[*reason] : std::string()};
  }
  return out;
}

Section replay_figure(Context& c) {
  Figure f("replay", c.steps, {"replay"});
  std::map<std::string, std::string> info;
  if (const auto text = read_text(c.raw, "replay.txt", f)) info = key_values(*text);
  const std::string policy = info.count("policy") ? info["policy"] : "";
  Json rows = Json::array();
  std::vector<std::vector<std::string>> md_rows;
  double abs_sum = 0;
  int n = 0;
  try {
    const auto measured_text = read_text(c.raw, "replay-measured/pods.csv", f);
    const auto simulated_text = read_text(c.raw, "replay-simulated/pods.csv", f);
    if (measured_text && simulated_text) {
      std::vector<std::string> order, unused;
      const auto measured = pods_of(*measured_text, "replay-measured/pods.csv", policy, order);
      const auto simulated = pods_of(*simulated_text, "replay-simulated/pods.csv", policy, unused);
      if (measured.empty()) f.unparsed(fmt::format("no pod of policy '{}' was replayed", policy));
      for (const std::string& pod : order) {
        const auto& m = measured.at(pod);
        const auto it = simulated.find(pod);
        const auto mj = csv_number(m[2]);
        const auto sj = it == simulated.end() ? std::nullopt : csv_number(it->second[2]);
        std::optional<double> err, pct;
        if (mj && sj) {
          err = *mj - *sj;
          if (*sj != 0) pct = *err / *sj * 100;
          abs_sum += std::abs(*err);
          ++n;
        }
        rows.push_back({{"pod", pod},
                        {"class", m[0]},
                        {"simulated_status", it == simulated.end() ? "absent" : it->second[1]},
                        {"measured_status", m[1]},
                        {"measured_reason", m[3]},
                        {"simulated_jct_s", value(sj)},
                        {"measured_jct_s", value(mj)},
                        {"error_s", value(err)},
                        {"error_percent", value(pct)}});
        md_rows.push_back({pod, m[0], fixed(sj, 2), fixed(mj, 2), signed_fixed(err, 2),
                           pct ? signed_fixed(pct, 1) + "%" : "-",
                           m[1] == "completed" ? "" : m[1] + (m[3].empty() ? "" : ": " + m[3])});
      }
      if (f.expected() && n == 0) f.unparsed("no pod completed in both runs");
    }
  } catch (const std::exception& e) {
    f.unparsed(e.what());
  }
  f.json()["scenario"] = info.count("scenario") ? info["scenario"] : "";
  f.json()["policy"] = policy;
  f.json()["time_scale"] = info.count("time_scale") ? info["time_scale"] : "";
  f.json()["calibration"] = info.count("calibration") ? info["calibration"] : "";
  f.json()["rows"] = rows;
  f.json()["mean_abs_error_s"] = n ? Json(abs_sum / n) : Json(nullptr);
  std::string md = "## Replay: simulated against measured\n\n" + f.status_line();
  md += fmt::format(
      "`{}`, policy `{}`: `slicelab replay --backend local --time-scale {}` on this GPU beside "
      "`slicelab run` with `calibration: {}`; JCT in scenario seconds, error = measured − "
      "simulated; a failed pod's reason is its exit as `pods.csv` gives it, and its output is "
      "in logs/replay-pod-<pod>.log.\n\n",
      f.json()["scenario"].get<std::string>(), policy, f.json()["time_scale"].get<std::string>(),
      f.json()["calibration"].get<std::string>());
  md += table({"pod", "class", "simulated s", "measured s", "error s", "error %", "note"}, md_rows,
              "llrrrrl");
  if (n) md += fmt::format("\nMean absolute error: {:.2f} s over {} pods.\n", abs_sum / n, n);
  return {f.finish(), md + "\n"};
}

// googletest's JSON has no skip message: its text output does, between "<file>:<line>: Skipped"
// and "[  SKIPPED ] Suite.Name (N ms)".
std::map<std::string, std::string> skip_messages(const std::string& log) {
  std::map<std::string, std::string> out;
  std::string message;
  bool in_skip = false;
  for (const std::string& line : lines_of(log)) {
    if (line.ends_with(": Skipped")) {
      in_skip = true;
      message.clear();
    } else if (line.starts_with("[  SKIPPED ] ") && in_skip) {
      const std::string rest = line.substr(13);
      out[rest.substr(0, rest.find(' '))] = message;
      in_skip = false;
    } else if (line.starts_with("[ ")) {
      in_skip = false;
    } else if (in_skip) {
      message += (message.empty() ? "" : " ") + line;
    }
  }
  return out;
}

Section gpu_tests_figure(Context& c) {
  Figure f("gpu-tests", c.steps, {"gpu-tests"});
  std::map<std::string, std::string> skipped_why;
  if (const auto log = read_raw(c.raw, "logs/gpu-tests.log")) skipped_why = skip_messages(*log);
  Json rows = Json::array();
  std::vector<std::vector<std::string>> md_rows;
  std::map<std::string, int> counts;
  const auto files = raw_files_matching(c.raw, "gpu-tests-", ".json");
  if (files.empty()) f.unparsed("no gpu-tests-<program>.json (googletest's JSON)");
  for (const std::string& file : files) {
    const Json j = read_json_file(c.raw, file, f);
    if (!j.is_object()) continue;
    const std::string program = file.substr(10, file.size() - 15);
    for (const Json& suite : j.value("testsuites", Json::array())) {
      for (const Json& t : suite.value("testsuite", Json::array())) {
        const std::string name =
            suite.value("name", std::string()) + "." + t.value("name", std::string());
        std::string result = t.value("result", std::string()) == "SKIPPED" ? "skipped" : "passed";
        std::string detail;
        for (const char* key : {"failures", "skipped"}) {
          for (const Json& fl : t.value(key, Json::array())) {
            if (key == std::string("failures")) result = "failed";
            std::string msg = fl.value("failure", fl.value("message", std::string()));
            // googletest's messages start with the file and line; the reason follows.
            if (const auto nl = msg.find('\n'); nl != std::string::npos && msg.find(".cc:") < nl)
              msg = msg.substr(nl + 1);
            if (!detail.empty()) detail += "; ";
            detail += msg.substr(0, 300);
          }
        }
        if (result == "skipped" && detail.empty() && skipped_why.count(name))
          detail = skipped_why.at(name).substr(0, 300);
        ++counts[result];
        rows.push_back(
            {{"program", program}, {"test", name}, {"result", result}, {"detail", detail}});
        md_rows.push_back({name, result, detail});
      }
    }
  }
  if (f.expected() && rows.empty()) f.unparsed("googletest's JSON lists no test");
  if (!rows.empty() && counts["passed"] == 0 && counts["failed"] == 0)
    f.skipped("every real-GPU test skipped (reasons in the table)");
  f.json()["rows"] = rows;
  f.json()["counts"] = counts;
  std::string md = "## Real-GPU tests\n\n" + f.status_line();
  md += fmt::format("{} passed, {} failed, {} skipped.\n\n", counts["passed"], counts["failed"],
                    counts["skipped"]);
  md += table({"test", "result", "detail"}, md_rows, "lll");
  return {f.finish(), md + "\n"};
}

Section mig_figure(Context& c) {
  Figure f("mig", c.steps, {"mig"});
  std::map<std::string, std::string> info;
  if (const auto text = read_text(c.raw, "mig.txt", f)) info = key_values(*text);
  f.json()["mig_mode"] = info.count("mig_mode") ? info["mig_mode"] : "";
  f.json()["instances"] = info.count("instances") ? info["instances"] : "";
  Json rows = Json::array();
  std::vector<std::vector<std::string>> md_rows;
  if (info.count("skipped") && !info["skipped"].empty()) {
    f.skipped(info["skipped"]);
  } else if (f.expected()) {
    const Json j = read_json_file(c.raw, "mig-isolation.json", f);
    for (const Json& m : j.is_object() ? j.value("mechanisms", Json::array()) : Json::array()) {
      if (m.contains("skipped")) f.skipped(m["skipped"].get<std::string>());
      for (const Json& cl : m.value("clients", Json::array())) {
        const auto cap = json_number(cl, "configured_share");
        const auto achieved = json_number(cl, "achieved_share");
        const auto err = json_number(cl, "error");
        rows.push_back({{"device", cl.value("device", std::string())},
                        {"share", value(cap)},
                        {"achieved", value(achieved)},
                        {"error", value(err)}});
        md_rows.push_back(
            {cl.value("device", std::string()), fixed(cap, 3), fixed(achieved, 3), fixed(err, 3)});
      }
    }
  }
  f.json()["rows"] = rows;
  std::string md = "## MIG\n\n" + f.status_line();
  md += fmt::format(
      "MIG mode: {}; instances: {}. slicelab never changes the MIG mode or the "
      "instances.\n\n",
      info.count("mig_mode") ? info["mig_mode"] : "-",
      info.count("instances") ? info["instances"] : "-");
  if (!md_rows.empty()) md += table({"instance", "share", "achieved", "error"}, md_rows, "lrrr");
  return {f.finish(), md + "\n"};
}

std::string baselines_section(const std::map<std::string, Json>& figures, const Context& c) {
  std::string md = "## Updating the committed baselines\n\n";
  const auto env = [&](const char* k) { return c.env.count(k) ? c.env.at(k) : std::string("?"); };
  if (c.fake) {
    md +=
        "This report was made on the fake driver: its figures are not measurements of a GPU "
        "and must not go into `bench/overhead-baseline.txt` or `calibration/default.yaml`.\n";
    return md;
  }
  md += "As docs/gpu-check.md says, in one reviewed commit:\n\n";
  const Json& calls = figures.at("overhead-calls");
  if (calls.value("status", std::string()) == "measured") {
    md +=
        "- `bench/overhead-baseline.txt` gates instructions counted on the fake driver; these "
        "wall-clock figures do not replace them. Add them as a comment for reference:\n\n"
        "  ```\n";
    std::string line = fmt::format("  # real driver ({}, driver {}, {}):", env("gpu"),
                                   env("driver"), env("date").substr(0, 10));
    for (const Json& r : calls["rows"])
      line += fmt::format(" {} +{:.0f} ns", r.value("op", std::string()), r.value("added_ns", 0.0));
    md += line + "\n  ```\n";
    for (const Json& r : calls["rows"])
      if (r.value("op", std::string()) == "LaunchKernel")
        md += fmt::format(
            "- `calibration/default.yaml` and sim/interference/builtin_calibration.cc: "
            "`interposer_launch_overhead_ns: {:.0f}` (the launch's added time above).\n",
            r.value("added_ns", 0.0));
  }
  const Json& cal = figures.at("calibration");
  if (cal.value("status", std::string()) == "measured") {
    md += "- `calibration/default.yaml` `coefficients:` (and builtin_calibration.cc):";
    for (const Json& r : cal["rows"])
      md +=
          fmt::format(" {}: {{bandwidth: {:.4g}, launch: {:.4g}}};", r.value("mode", std::string()),
                      r.value("a_bandwidth", 0.0), r.value("b_launch", 0.0));
    md += " with `source:` naming this report, only if the fit's issues above allow it.\n";
  } else {
    md += "- `calibration/default.yaml` `coefficients:`: unchanged: the calibration figure is " +
          cal.value("status", std::string()) + " (" + cal.value("reason", std::string()) +
          "); a fit the data cannot support is not a baseline.\n";
  }
  return md;
}

}  // namespace

GpuCheckReport write_gpu_check_report(const fs::path& raw, const fs::path& out) {
  Context c;
  c.raw = raw;
  std::optional<std::string> steps_text;
  try {
    steps_text = read_raw(raw, "steps.tsv");
  } catch (const std::exception&) {
  }
  if (!steps_text)
    throw InputError(
        fmt::format("{}: no steps.tsv: not a raw folder of scripts/gpu-check (docs/gpu-check.md)",
                    raw.string()));
  for (const std::string& line : lines_of(*steps_text)) {
    if (line.empty() || line[0] == '#') continue;
    const auto v = split(line, '\t');
    if (v.size() < 4) continue;
    Step s{v[0], v[2], v.size() > 4 ? v[4] : "", number(v[1]), number(v[3])};
    c.steps[s.name] = s;
    c.step_order.push_back(s);
  }
  if (const auto env = read_raw(raw, "environment.txt")) c.env = key_values(*env);
  c.fake = c.env.count("mode") && c.env["mode"] == "fake";

  Json memory_isolation;
  std::vector<Section> sections;
  sections.push_back(environment_figure(c));
  sections.push_back(steps_figure(c));
  sections.push_back(overhead_calls_figure(c));
  sections.push_back(overhead_kernels_figure(c));
  sections.push_back(isolation_figure(c, memory_isolation));
  sections.push_back(memory_cap_figure(c, memory_isolation));
  sections.push_back(colocation_figure(c));
  sections.push_back(calibration_figure(c));
  sections.push_back(replay_figure(c));
  sections.push_back(gpu_tests_figure(c));
  sections.push_back(mig_figure(c));

  GpuCheckReport report;
  std::map<std::string, Json> figures;
  std::string not_measured_md;
  for (Section& s : sections) {
    const std::string name = s.json["figure"].get<std::string>();
    const std::string status = s.json["status"].get<std::string>();
    figures[name] = s.json;
    if (status == "measured") {
      ++report.measured;
    } else {
      ++report.not_measured;
      not_measured_md +=
          fmt::format("- {}: {}: {}\n", name, status, s.json.value("reason", std::string()));
      if (status == "unparsed") report.unparsed.push_back(name + ": " + s.json.value("reason", ""));
    }
    write_text_file(out / (name + ".json"), s.json.dump(2) + "\n");
    report.files.push_back(name + ".json");
  }

  const std::string gpu = c.env.count("gpu") ? c.env["gpu"] : "unknown GPU";
  std::string md = fmt::format("# slicelab gpu-check: {}\n\n", gpu);
  if (c.fake)
    md +=
        "**Made on the fake driver (tests/fakes) with the CPU stand-in: no GPU was measured. "
        "The figures show that the steps, their parsing and this report work, nothing "
        "about a GPU.**\n\n";
  md += fmt::format(
      "{} of {} figures measured; {} not (below, with why). Every figure is also "
      "in <figure>.json beside this file; the steps' logs are in logs/.\n\n",
      report.measured, sections.size(), report.not_measured);
  for (const Section& s : sections) md += s.markdown;
  md += "## Skipped and why\n\n";
  std::string steps_md;
  for (const Step& st : c.step_order)
    if (st.status != "ok")
      steps_md += fmt::format("- step {}: {}: {}\n", st.name, st.status, st.detail);
  md += steps_md.empty() ? "Every step ran.\n" : "Steps:\n\n" + steps_md;
  md += not_measured_md.empty() ? "\nEvery figure was measured.\n"
                                : "\nFigures not measured:\n\n" + not_measured_md;
  md += "\n" + baselines_section(figures, c);
  write_text_file(out / "summary.md", md);
  report.files.push_back("summary.md");

  // The files behind the figures that a reader may want as they are.
  for (const char* name : {"colocation.csv", "calibration.yaml"}) {
    std::error_code ec;
    if (fs::is_regular_file(raw / name, ec)) {
      fs::copy_file(raw / name, out / name);
      report.files.push_back(name);
    }
  }
  std::error_code ec;
  if (fs::is_directory(raw / "logs", ec)) {
    fs::create_directory(out / "logs");
    for (const auto& e : fs::directory_iterator(raw / "logs")) {
      if (!e.is_regular_file() || e.is_symlink()) continue;
      fs::copy_file(e.path(), out / "logs" / e.path().filename());
      report.files.push_back("logs/" + e.path().filename().string());
    }
  }
  std::sort(report.files.begin(), report.files.end());
  return report;
}

}  // namespace slicelab
