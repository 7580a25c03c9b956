#include "workloads/inputs/csv_trace_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "workloads/csv_reader.h"
#include "workloads/edit_distance.h"
#include "workloads/go_duration.h"
#include "workloads/input_error.h"
#include "workloads/input_limits.h"
#include "workloads/kube/kube_quantity.h"
#include "workloads/pod_value_interner.h"

namespace slicelab {
namespace {

constexpr double kMaxQuantity = 1e12;

struct Columns {
  std::optional<size_t> name, arrival, duration, start, end, gpu_count, gpu_milli, gpu_memory,
      gpu_memory_used, cpu, memory, priority, models, cls;
};

bool empty(const CsvReader& csv, std::optional<size_t> c) {
  return !c || csv.field(*c).find_first_not_of(" \t") == std::string::npos;
}

// A time column in seconds, from 0 to the simulation horizon: a larger one, or one that becomes
// infinite in seconds ("1e308" hours), would be written by `import` as "inf" and run forever.
double time_of(const CsvReader& csv, size_t c, double unit) {
  double v = 0;
  if (!parse_csv_number(csv.field(c), v) || v < 0 || !(v * unit <= kHorizonS))
    csv.fail_field(c, fmt::format("a time in 0..{} (the simulation horizon of {}, in the "
                                  "file's time unit)",
                                  kHorizonS / unit, kHorizonText));
  return v * unit;
}

int64_t scaled(const CsvReader& csv, size_t c, double unit) {
  return std::llround(csv.number(c, 0, kMaxQuantity / unit) * unit);
}

// A cell without the spaces around it, as the numeric cells are read.
std::string_view cell(const CsvReader& csv, size_t c) {
  std::string_view t = csv.field(c);
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  return t;
}

// How one column's cells are read, from its unit.
enum class Cell { kNumber, kRfc3339, kGoDuration, kPercent, kMemoryQuantity, kBytes, kCpuQuantity };

struct ColumnUnit {
  Cell cell = Cell::kNumber;
  double scale = 1.0;  // kNumber: the unit in seconds, MiB or thousandths of a core
};

std::string unit_of(const CsvTraceMapping& m, std::string_view field) {
  const auto it = m.units.find(std::string(field));
  return it == m.units.end() ? std::string() : it->second;
}

ColumnUnit time_column(const CsvTraceMapping& m, std::string_view field) {
  const std::string u = unit_of(m, field);
  if (u.empty()) return {Cell::kNumber, m.time_unit_s};
  if (u == "rfc3339") return {Cell::kRfc3339, 1.0};
  if (u == "duration") return {Cell::kGoDuration, 1.0};
  if (u == "seconds") return {Cell::kNumber, 1.0};
  return {Cell::kNumber, csv_time_unit(u).value_or(1.0)};
}

ColumnUnit memory_column(const CsvTraceMapping& m, std::string_view field) {
  const std::string u = unit_of(m, field);
  if (u.empty()) return {Cell::kNumber, m.memory_unit_mib};
  if (u == "quantity") return {Cell::kMemoryQuantity, 1.0};
  if (u == "bytes") return {Cell::kBytes, 1.0};
  if (u == "percent") return {Cell::kPercent, 1.0};
  return {Cell::kNumber, csv_memory_unit(u).value_or(1.0)};
}

ColumnUnit cpu_column(const CsvTraceMapping& m) {
  const std::string u = unit_of(m, "cpu_milli");
  if (u.empty()) return {Cell::kNumber, m.cpu_unit_milli};
  if (u == "quantity") return {Cell::kCpuQuantity, 1.0};
  return {Cell::kNumber, csv_cpu_unit(u).value_or(1.0)};
}

// A memory cell in MiB under its column's unit.
int64_t memory_cell(const CsvReader& csv, size_t c, const ColumnUnit& u) {
  if (u.cell == Cell::kNumber) return scaled(csv, c, u.scale);
  const std::string_view text = cell(csv, c);
  std::string error;
  if (u.cell == Cell::kBytes && text.find_first_not_of("0123456789") != std::string_view::npos)
    csv.fail_field(c, "a whole number of bytes");
  const std::optional<int64_t> mib = parse_memory_mib(text, error);
  if (!mib) csv.fail(fmt::format("column '{}': {}", csv.header()[c], error));
  if (*mib > static_cast<int64_t>(kMaxQuantity))
    csv.fail_field(c, "a memory size of at most 10^12 MiB");
  return *mib;
}

// Times as read, before RFC 3339 times are moved to count from the origin: those are seconds
// since `anchor` (the origin, or the file's first time) and may be negative until then.
struct TimeReader {
  const CsvTraceMapping& m;
  std::optional<Rfc3339Time> anchor;

  double read(const CsvReader& csv, size_t c, const ColumnUnit& u) {
    if (u.cell == Cell::kNumber) return time_of(csv, c, u.scale);
    std::string error;
    if (u.cell == Cell::kGoDuration) {
      const std::optional<double> v = parse_go_duration(cell(csv, c), error);
      if (!v) csv.fail(fmt::format("column '{}': {}", csv.header()[c], error));
      if (!(*v <= kHorizonS))
        csv.fail_field(c, fmt::format("a time within the simulation horizon of {}", kHorizonText));
      return *v;
    }
    const std::optional<Rfc3339Time> t = parse_rfc3339(cell(csv, c), error);
    if (!t) csv.fail(fmt::format("column '{}': {}", csv.header()[c], error));
    if (!anchor) anchor = t;
    const double v = t->seconds_since(*anchor);
    if (m.time_origin && v < 0) csv.fail_field(c, "a time at or after the time origin");
    if (!(std::fabs(v) <= kHorizonS))
      csv.fail_field(c, fmt::format("a time within the simulation horizon of {} of the "
                                    "file's other times",
                                    kHorizonText));
    return v;
  }
};

}  // namespace

std::optional<double> csv_time_unit(std::string_view name) {
  if (name == "s") return 1.0;
  if (name == "ms") return 0.001;
  if (name == "min") return 60.0;
  if (name == "h") return 3600.0;
  return std::nullopt;
}

std::optional<double> csv_memory_unit(std::string_view name) {
  if (name == "MiB") return 1.0;
  if (name == "GiB") return 1024.0;
  return std::nullopt;
}

std::optional<double> csv_cpu_unit(std::string_view name) {
  if (name == "milli") return 1.0;
  if (name == "cores") return 1000.0;
  return std::nullopt;
}

std::vector<std::string_view> csv_field_units(std::string_view field) {
  if (field == "arrival" || field == "start" || field == "end")
    return {"s", "seconds", "ms", "min", "h", "duration", "rfc3339"};
  if (field == "duration") return {"s", "seconds", "ms", "min", "h", "duration"};
  if (field == "gpu_milli") return {"milli", "percent"};
  if (field == "gpu_memory_mib") return {"MiB", "GiB", "bytes", "quantity", "percent"};
  if (field == "memory_mib" || field == "gpu_memory_used_mib")
    return {"MiB", "GiB", "bytes", "quantity"};
  if (field == "cpu_milli") return {"milli", "cores", "quantity"};
  return {};
}

void add_csv_column(CsvTraceMapping& m, const std::string& field, std::string_view spec) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string_view::npos) {
    m.columns[field] = std::string(spec);
    return;
  }
  m.columns[field] = std::string(spec.substr(0, colon));
  m.units[field] = std::string(spec.substr(colon + 1));
}

std::optional<std::string> check_csv_unit(std::string_view field, std::string_view unit) {
  const std::vector<std::string_view> known = csv_field_units(field);
  if (std::find(known.begin(), known.end(), unit) != known.end()) return std::nullopt;
  if (known.empty()) return fmt::format("pod field '{}' takes no unit (found '{}')", field, unit);
  // The closest unit, ignoring case ("mib" -> "MiB", "percentage" -> "percent").
  const auto lower = [](std::string_view t) {
    std::string out(t);
    for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return out;
  };
  std::string_view best;
  size_t best_d = std::max<size_t>(2, unit.size() / 3) + 1;
  for (const std::string_view k : known) {
    const std::string a = lower(unit), b = lower(k);
    const size_t d = a.starts_with(b) || b.starts_with(a) ? 1 : edit_distance(a, b);
    if (d < best_d) best_d = d, best = k;
  }
  return fmt::format("unknown unit '{}' for {}{} (units: {})", unit, field,
                     best.empty() ? "" : fmt::format(" (did you mean '{}'?)", best),
                     fmt::join(known, ", "));
}

std::optional<std::string> check_csv_mapping(const CsvTraceMapping& m) {
  for (const auto& [field, column] : m.columns) {
    if (std::find(std::begin(kCsvTraceFields), std::end(kCsvTraceFields), field) ==
        std::end(kCsvTraceFields))
      return fmt::format("unknown pod field '{}' (known: {})", field,
                         fmt::join(kCsvTraceFields, ", "));
    if (column.empty()) return fmt::format("pod field '{}' maps to an empty column name", field);
  }
  for (const auto& [field, unit] : m.units)
    if (auto err = check_csv_unit(field, unit)) return err;
  // RFC 3339 times are moved to count from the earliest; a column of seconds beside them
  // would not move with them.
  int dates = 0, points = 0;
  for (const char* f : {"arrival", "start", "end"}) {
    if (!m.columns.contains(f)) continue;
    ++points;
    if (unit_of(m, f) == "rfc3339") ++dates;
  }
  if (dates > 0 && dates != points)
    return std::string(
        "arrival, start and end are points in time: give all of them as rfc3339, "
        "or none");
  const bool duration = m.columns.contains("duration");
  const bool start = m.columns.contains("start") || m.columns.contains("arrival");
  const bool end = m.columns.contains("end");
  if (duration && end) return std::string("map either 'duration' or 'start' and 'end', not both");
  if (!duration && !(start && end))
    return std::string("needs a column for 'duration', or for 'end' and 'start' (or 'arrival')");
  return std::nullopt;
}

std::vector<PodSpec> read_csv_trace(const CsvTraceMapping& m, const ModelCheck& check_model,
                                    std::vector<std::string>* warnings) {
  if (auto err = check_csv_mapping(m)) throw InputError(fmt::format("{}: {}", m.file, *err));
  CsvReader csv(m.file, m.separator);
  const auto col = [&](const char* field) -> std::optional<size_t> {
    const auto it = m.columns.find(field);
    if (it == m.columns.end()) return std::nullopt;
    if (auto c = csv.column(it->second)) return c;
    throw InputError(fmt::format("{}:1: missing column '{}' (mapped to {}; the header has: {})",
                                 m.file, it->second, field, csv.header_text()));
  };
  Columns c;
  c.name = col("name");
  c.arrival = col("arrival");
  c.duration = col("duration");
  c.start = col("start");
  c.end = col("end");
  c.gpu_count = col("gpu_count");
  c.gpu_milli = col("gpu_milli");
  c.gpu_memory = col("gpu_memory_mib");
  c.gpu_memory_used = col("gpu_memory_used_mib");
  c.cpu = col("cpu_milli");
  c.memory = col("memory_mib");
  c.priority = col("priority");
  c.models = col("allowed_models");
  c.cls = col("class");

  const ColumnUnit arrival_unit = time_column(m, "arrival");
  const ColumnUnit start_unit = time_column(m, "start");
  const ColumnUnit end_unit = time_column(m, "end");
  const ColumnUnit duration_unit = time_column(m, "duration");
  const ColumnUnit gpu_memory_unit = memory_column(m, "gpu_memory_mib");
  const ColumnUnit gpu_memory_used_unit = memory_column(m, "gpu_memory_used_mib");
  const ColumnUnit memory_unit = memory_column(m, "memory_mib");
  const ColumnUnit cpu_unit = cpu_column(m);
  const bool share_percent = unit_of(m, "gpu_milli") == "percent";
  const bool dates = arrival_unit.cell == Cell::kRfc3339 || start_unit.cell == Cell::kRfc3339;
  TimeReader times{m, m.time_origin};
  int largest_share = 0;  // of gpu_milli as written, for the percentage warning

  std::vector<PodSpec> pods;
  std::vector<size_t> pod_lines;  // only with RFC 3339 times, to place horizon errors
  std::unordered_map<std::string, size_t> lines;
  PodValueInterner shared;
  while (csv.next()) {
    PodSpec pod;
    pod.name = empty(csv, c.name) ? fmt::format("pod-{}", pods.size()) : csv.field(*c.name);
    if (auto [it, fresh] = lines.emplace(pod.name, csv.line()); !fresh) {
      if (c.name)
        csv.fail_field(*c.name, fmt::format("a unique pod name (also on line {})", it->second));
      csv.fail(fmt::format("duplicate pod name '{}' (also on line {})", pod.name, it->second));
    }
    const double start = empty(csv, c.start) ? 0.0 : times.read(csv, *c.start, start_unit);
    pod.arrival_s = empty(csv, c.arrival) ? start : times.read(csv, *c.arrival, arrival_unit);
    if (dates && empty(csv, c.arrival) && empty(csv, c.start))
      csv.fail_field(c.arrival ? *c.arrival : *c.start, "an RFC 3339 time");
    if (c.duration) {
      pod.duration_s = times.read(csv, *c.duration, duration_unit);
      if (pod.duration_s < 0.001) csv.fail_field(*c.duration, "a duration of at least 1 ms");
    } else {
      // The run starts at `start`, or at the arrival when only that is mapped.
      const size_t from = c.start ? *c.start : *c.arrival;
      if (empty(csv, from)) csv.fail_field(from, "a time");
      pod.duration_s = times.read(csv, *c.end, end_unit) - (c.start ? start : pod.arrival_s);
      if (pod.duration_s < 0.001)
        csv.fail_field(*c.end, fmt::format("a time at least 1 ms after {} ('{}')",
                                           csv.header()[from], csv.field(from)));
    }
    if (!empty(csv, c.gpu_count))
      pod.gpu_count = static_cast<int>(csv.integer(*c.gpu_count, 0, 64));
    if (!empty(csv, c.gpu_milli)) {
      // The same rules as the pod format: a share below a whole GPU only for one-GPU pods;
      // a pod without GPUs may carry 0 there, as exports of such traces do.
      // A percentage (HAMi's nvidia.com/gpucores) is ten thousandths per percent.
      const int whole = share_percent ? 100 : 1000;
      if (pod.gpu_count == 0) {
        if (csv.integer(*c.gpu_milli, 0, 0) != 0) csv.fail_field(*c.gpu_milli, "0");
      } else if (pod.gpu_count == 1) {
        const int v = static_cast<int>(csv.integer(*c.gpu_milli, 1, whole));
        largest_share = std::max(largest_share, v);
        pod.gpu_milli = static_cast<int16_t>(share_percent ? v * 10 : v);
      } else {
        csv.integer(*c.gpu_milli, whole, whole);
        largest_share = std::max(largest_share, whole);
      }
    }
    if (!empty(csv, c.gpu_memory) && gpu_memory_unit.cell == Cell::kPercent) {
      // HAMi's nvidia.com/gpumem-percentage: resolved against the GPU the pod lands on.
      if (pod.gpu_count == 0) {
        if (csv.integer(*c.gpu_memory, 0, 0) != 0)
          csv.fail_field(*c.gpu_memory, "0 for a pod without GPUs");
      } else {
        pod.gpu_memory_percent = static_cast<int16_t>(csv.integer(*c.gpu_memory, 1, 100));
      }
    } else if (!empty(csv, c.gpu_memory)) {
      pod.gpu_memory_mib = memory_cell(csv, *c.gpu_memory, gpu_memory_unit);
      if (pod.gpu_count == 0 && pod.gpu_memory_mib > 0)
        csv.fail_field(*c.gpu_memory, "0 for a pod without GPUs");
    }
    if (!empty(csv, c.gpu_memory_used)) {
      const int64_t used = memory_cell(csv, *c.gpu_memory_used, gpu_memory_used_unit);
      if (used > INT32_MAX)
        csv.fail_field(*c.gpu_memory_used, fmt::format("at most {} MiB", int64_t{INT32_MAX}));
      if (pod.gpu_count == 0 && used > 0)
        csv.fail_field(*c.gpu_memory_used, "0 for a pod without GPUs");
      pod.gpu_memory_used_mib = static_cast<int32_t>(used);
    }
    if (!empty(csv, c.cpu)) {
      if (cpu_unit.cell == Cell::kCpuQuantity) {
        std::string error;
        const std::optional<int64_t> v = parse_cpu_milli(cell(csv, *c.cpu), error);
        if (!v) csv.fail(fmt::format("column '{}': {}", csv.header()[*c.cpu], error));
        if (*v > static_cast<int64_t>(kMaxQuantity))
          csv.fail_field(*c.cpu, "a CPU quantity of at most 10^9 cores");
        pod.cpu_milli = *v;
      } else {
        pod.cpu_milli = scaled(csv, *c.cpu, cpu_unit.scale);
      }
    }
    if (!empty(csv, c.memory)) pod.memory_mib = memory_cell(csv, *c.memory, memory_unit);
    if (!empty(csv, c.priority))
      pod.priority = static_cast<int>(csv.integer(*c.priority, -1000000, 1000000));
    if (!empty(csv, c.models)) {
      if (pod.gpu_count == 0) csv.fail_field(*c.models, "no GPU models for a pod without GPUs");
      std::string_view spec = csv.field(*c.models);
      std::vector<std::string> models;
      // As written too (repeats kept), as the openb reader keeps gpu_spec: FGD's target workload
      // keys on it (ModelList::written).
      std::string written;
      while (!spec.empty()) {
        const size_t bar = spec.find('|');
        std::string name(spec.substr(0, bar));
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        if (!name.empty()) written.append(written.empty() ? "" : "|").append(name);
        if (!name.empty() && std::find(models.begin(), models.end(), name) == models.end()) {
          if (auto err = check_model ? check_model(name) : std::nullopt)
            csv.fail(fmt::format("column '{}': {}", csv.header()[*c.models], *err));
          models.push_back(std::move(name));
        }
        if (bar == std::string_view::npos) break;
        spec.remove_prefix(bar + 1);
      }
      pod.allowed_models = shared.models(std::move(models), written);
    }
    if (!empty(csv, c.cls))
      pod.workload_class = shared.text(csv.field(*c.cls));
    else
      pod.workload_class = shared.text("default");
    if (pods.size() == static_cast<size_t>(kMaxPods))
      csv.fail(fmt::format("more than {} pods (the limit of one workload)", kMaxPods));
    pods.push_back(std::move(pod));
    if (dates) pod_lines.push_back(csv.line());
  }
  if (pods.empty()) throw InputError(fmt::format("{}: no pods after the header", m.file));
  if (dates) {
    // Arrivals count from the origin given, else from the earliest in the file.
    double origin = 0.0;
    if (!m.time_origin) {
      origin = pods[0].arrival_s;
      for (const PodSpec& p : pods) origin = std::min(origin, p.arrival_s);
    }
    for (size_t i = 0; i < pods.size(); ++i) {
      pods[i].arrival_s -= origin;
      if (!(pods[i].arrival_s <= kHorizonS))
        throw InputError(fmt::format(
            "{}:{}: arrives {:g}s after the earliest pod, beyond the simulation horizon of {}",
            m.file, pod_lines[i], pods[i].arrival_s, kHorizonText));
    }
  }
  if (warnings && c.gpu_milli && !m.units.contains("gpu_milli") && largest_share > 0 &&
      largest_share <= 100)
    warnings->push_back(fmt::format(
        "{}: column '{}' (gpu_milli) holds no value above {}: gpu_milli is thousandths of a GPU, "
        "so these pods ask for at most {}% of one; if the column is a percentage (HAMi's "
        "nvidia.com/gpucores), map it as gpu_milli={}:percent, or as {}:milli to keep this "
        "reading",
        m.file, csv.header()[*c.gpu_milli], largest_share, largest_share / 10.0,
        csv.header()[*c.gpu_milli], csv.header()[*c.gpu_milli]));
  return pods;
}

}  // namespace slicelab
