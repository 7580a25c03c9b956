#include "workloads/csv_trace_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "workloads/csv_reader.h"
#include "workloads/input_error.h"
#include "workloads/input_limits.h"
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

std::optional<std::string> check_csv_mapping(const CsvTraceMapping& m) {
  for (const auto& [field, column] : m.columns) {
    if (std::find(std::begin(kCsvTraceFields), std::end(kCsvTraceFields), field) ==
        std::end(kCsvTraceFields))
      return fmt::format("unknown pod field '{}' (known: {})", field,
                         fmt::join(kCsvTraceFields, ", "));
    if (column.empty()) return fmt::format("pod field '{}' maps to an empty column name", field);
  }
  const bool duration = m.columns.contains("duration");
  const bool start = m.columns.contains("start") || m.columns.contains("arrival");
  const bool end = m.columns.contains("end");
  if (duration && end) return std::string("map either 'duration' or 'start' and 'end', not both");
  if (!duration && !(start && end))
    return std::string("needs a column for 'duration', or for 'end' and 'start' (or 'arrival')");
  return std::nullopt;
}

std::vector<PodSpec> read_csv_trace(const CsvTraceMapping& m, const ModelCheck& check_model) {
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

  std::vector<PodSpec> pods;
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
    const double start = empty(csv, c.start) ? 0.0 : time_of(csv, *c.start, m.time_unit_s);
    pod.arrival_s = empty(csv, c.arrival) ? start : time_of(csv, *c.arrival, m.time_unit_s);
    if (c.duration) {
      pod.duration_s = time_of(csv, *c.duration, m.time_unit_s);
      if (pod.duration_s < 0.001) csv.fail_field(*c.duration, "a duration of at least 1 ms");
    } else {
      // The run starts at `start`, or at the arrival when only that is mapped.
      const size_t from = c.start ? *c.start : *c.arrival;
      if (empty(csv, from)) csv.fail_field(from, "a time");
      pod.duration_s = time_of(csv, *c.end, m.time_unit_s) - (c.start ? start : pod.arrival_s);
      if (pod.duration_s < 0.001)
        csv.fail_field(*c.end, fmt::format("a time at least 1 ms after {} ('{}')",
                                           csv.header()[from], csv.field(from)));
    }
    if (!empty(csv, c.gpu_count))
      pod.gpu_count = static_cast<int>(csv.integer(*c.gpu_count, 0, 64));
    if (!empty(csv, c.gpu_milli)) {
      // The same rules as the pod format: a share below a whole GPU only for one-GPU pods;
      // a pod without GPUs may carry 0 there, as exports of such traces do.
      if (pod.gpu_count == 0) {
        if (csv.integer(*c.gpu_milli, 0, 0) != 0) csv.fail_field(*c.gpu_milli, "0");
      } else if (pod.gpu_count == 1) {
        pod.gpu_milli = static_cast<int>(csv.integer(*c.gpu_milli, 1, 1000));
      } else {
        csv.integer(*c.gpu_milli, 1000, 1000);
      }
    }
    if (!empty(csv, c.gpu_memory)) {
      pod.gpu_memory_mib = scaled(csv, *c.gpu_memory, m.memory_unit_mib);
      if (pod.gpu_count == 0 && pod.gpu_memory_mib > 0)
        csv.fail_field(*c.gpu_memory, "0 for a pod without GPUs");
    }
    if (!empty(csv, c.gpu_memory_used)) {
      const int64_t used = scaled(csv, *c.gpu_memory_used, m.memory_unit_mib);
      if (used > INT32_MAX)
        csv.fail_field(*c.gpu_memory_used, fmt::format("at most {} MiB", int64_t{INT32_MAX}));
      if (pod.gpu_count == 0 && used > 0)
        csv.fail_field(*c.gpu_memory_used, "0 for a pod without GPUs");
      pod.gpu_memory_used_mib = static_cast<int32_t>(used);
    }
    if (!empty(csv, c.cpu)) pod.cpu_milli = scaled(csv, *c.cpu, m.cpu_unit_milli);
    if (!empty(csv, c.memory)) pod.memory_mib = scaled(csv, *c.memory, m.memory_unit_mib);
    if (!empty(csv, c.priority))
      pod.priority = static_cast<int>(csv.integer(*c.priority, -1000000, 1000000));
    if (!empty(csv, c.models)) {
      if (pod.gpu_count == 0) csv.fail_field(*c.models, "no GPU models for a pod without GPUs");
      std::string_view spec = csv.field(*c.models);
      std::vector<std::string> models;
      while (!spec.empty()) {
        const size_t bar = spec.find('|');
        std::string name(spec.substr(0, bar));
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        if (!name.empty() && std::find(models.begin(), models.end(), name) == models.end()) {
          if (auto err = check_model ? check_model(name) : std::nullopt)
            csv.fail(fmt::format("column '{}': {}", csv.header()[*c.models], *err));
          models.push_back(std::move(name));
        }
        if (bar == std::string_view::npos) break;
        spec.remove_prefix(bar + 1);
      }
      pod.allowed_models = shared.models(std::move(models));
    }
    if (!empty(csv, c.cls))
      pod.workload_class = shared.text(csv.field(*c.cls));
    else
      pod.workload_class = shared.text("default");
    if (pods.size() == static_cast<size_t>(kMaxPods))
      csv.fail(fmt::format("more than {} pods (the limit of one workload)", kMaxPods));
    pods.push_back(std::move(pod));
  }
  if (pods.empty()) throw InputError(fmt::format("{}: no pods after the header", m.file));
  return pods;
}

}  // namespace slicelab
