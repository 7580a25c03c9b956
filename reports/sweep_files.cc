#include "reports/sweep_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

#include "reports/atomic_folder.h"
#include "reports/json_file.h"
#include "reports/output_values.h"
#include "sim/planning/plan_metrics.h"
#include "workloads/input_error.h"
#include "workloads/input_limits.h"
#include "workloads/text_file.h"

namespace slicelab {
namespace {

using ojson = nlohmann::ordered_json;

std::string num(double v) {
  return std::isfinite(v) ? fmt::format("{:.9g}", v) : std::string();
}

std::string header() {
  std::string h = "point,policy,cluster_scale,workload_scale,seed,nodes,gpus,pods";
  for (const auto m : metric_names()) h += fmt::format(",{}", m);
  return h + "\n";
}

// FNV-1a over the file's bytes: a stable fingerprint, so that merge refuses shards of a base
// scenario that changed between runs.
std::string fingerprint(const std::string& path) {
  uint64_t h = 1469598103934665603ULL;
  for (const char c : read_text_file(path, kMaxConfigYamlBytes)) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", h);
}

// A manifest count ("points", "rows"): present and a non-negative integer, else a located
// InputError (json's own accessors would throw type_error or out_of_range past the CLI's catch).
size_t manifest_count(const ojson& manifest, const char* key, const std::string& file) {
  const auto it = manifest.find(key);
  if (it == manifest.end() || !it->is_number_unsigned())
    throw InputError(
        fmt::format("{}: not a sweep manifest: '{}' must be a non-negative integer", file, key));
  return it->get<size_t>();
}

}  // namespace

std::string sweep_csv(const SweepSpec& spec, std::span<const SweepRow> rows) {
  std::string out = header();
  for (const auto& r : rows) {
    const SweepPoint& p = r.point;
    out += fmt::format("{},{},{},{},{},{},{},{}", p.index, csv_field(spec.policies[p.policy]),
                       num(spec.cluster_scales[p.cluster]), num(spec.workload_scales[p.workload]),
                       spec.seeds[p.seed], r.nodes, r.gpus, r.pods);
    for (const auto m : metric_names()) {
      const auto v = metric_value(r.summary, m);
      out += "," + (v ? num(*v) : std::string());
    }
    out += "\n";
  }
  return out;
}

ojson sweep_manifest(const SweepSpec& spec, Shard shard, size_t rows) {
  ojson j;
  j["kind"] = "sweep";
  j["format"] = "slicelab.sweep/1";
  j["name"] = spec.name;
  j["scenario"] = spec.scenario;
  j["scenario_fnv1a"] = fingerprint(spec.scenario_path);
  j["grid"] = {{"order", "seed, workload_scale, cluster_scale, policy (policy fastest)"},
               {"policies", spec.policies},
               {"cluster_scales", spec.cluster_scales},
               {"workload_scales", spec.workload_scales},
               {"seeds", spec.seeds}};
  j["points"] = spec.size();
  j["shard"] = {{"index", shard.index}, {"count", shard.count}};
  j["rows"] = rows;
  j["files"] = {"sweep.csv"};
  return j;
}

void write_sweep(const std::string& dir, const SweepSpec& spec, Shard shard,
                 std::vector<SweepRow> rows, bool force) {
  std::sort(rows.begin(), rows.end(),
            [](const SweepRow& a, const SweepRow& b) { return a.point.index < b.point.index; });
  write_folder_atomically(dir, force, [&](const std::filesystem::path& tmp) {
    write_text_file(tmp / "sweep.csv", sweep_csv(spec, rows));
    write_text_file(tmp / "sweep.json", sweep_manifest(spec, shard, rows.size()).dump(2) + "\n");
  });
}

size_t merge_sweeps(std::span<const std::string> shard_dirs, const std::string& out, bool force) {
  if (shard_dirs.empty()) throw InputError("merge: give at least one shard folder");
  namespace fs = std::filesystem;
  ojson first;
  std::string first_header;
  std::map<size_t, std::string> rows;  // grid index -> the row as written
  for (const auto& dir : shard_dirs) {
    const fs::path d(dir);
    const std::string manifest_file = (d / "sweep.json").string();
    const ojson m = read_json_file(manifest_file);
    // Types checked here so that nlohmann's type_error (no file named) cannot come out below.
    if (!m.is_object() || !m.contains("kind") || m.at("kind") != "sweep")
      throw InputError(
          fmt::format("{}: not a sweep manifest (kind is not 'sweep')", manifest_file));
    const size_t manifest_rows = manifest_count(m, "rows", manifest_file);
    if (manifest_count(m, "points", manifest_file) == 0)
      throw InputError(
          fmt::format("{}: not a sweep manifest: the grid has no points", manifest_file));
    ojson same = m;
    same.erase("shard");
    same.erase("rows");
    if (first.is_null()) {
      first = m;
    } else {
      ojson ref = first;
      ref.erase("shard");
      ref.erase("rows");
      if (ref != same)
        throw InputError(fmt::format(
            "{}: describes a different sweep than {} (grid, scenario or its contents differ)", dir,
            shard_dirs.front()));
    }
    const std::string csv = read_text_file((d / "sweep.csv").string(), kMaxCsvBytes);
    std::istringstream lines(csv);
    std::string line;
    std::getline(lines, line);
    if (first_header.empty()) first_header = line;
    if (line != first_header || line + "\n" != header())
      throw InputError(fmt::format("{}: sweep.csv has an unexpected header", dir));
    size_t count = 0;
    for (size_t n = 2; std::getline(lines, line); ++n) {
      size_t index = 0;
      const auto comma = line.find(',');
      const auto [end, ec] =
          std::from_chars(line.data(), line.data() + std::min(comma, line.size()), index);
      if (comma == std::string::npos || ec != std::errc{} || end != line.data() + comma)
        throw InputError(fmt::format("{}/sweep.csv:{}: expected a grid index first", dir, n));
      if (!rows.emplace(index, line).second)
        throw InputError(fmt::format("{}/sweep.csv:{}: grid point {} is also in an earlier shard",
                                     dir, n, index));
      ++count;
    }
    if (count != manifest_rows)
      throw InputError(fmt::format("{}: sweep.csv has {} rows, its manifest says {}", dir, count,
                                   manifest_rows));
  }
  // The manifest's count is not trusted: a forged "points": 1e12 made merge walk (and list)
  // every missing index. Bound it, then find the first missing ones in time linear in the rows.
  const ojson points_json = first.contains("points") ? first["points"] : ojson();
  if (!points_json.is_number_unsigned() ||
      points_json.get<uint64_t>() > static_cast<uint64_t>(kMaxSweepPoints))
    throw InputError(fmt::format(
        "{}: 'points' must be a whole number of at most {} (the limit of one sweep), found {}",
        (fs::path(shard_dirs.front()) / "sweep.json").string(), kMaxSweepPoints,
        points_json.dump()));
  const auto points = points_json.get<size_t>();
  size_t inside = 0;  // rows whose index lies in the grid
  for (const auto& [i, line] : rows) inside += i < points ? 1 : 0;
  std::vector<size_t> missing;
  for (size_t i = 0; i < points && missing.size() < 10; ++i)
    if (!rows.contains(i)) missing.push_back(i);
  if (!missing.empty()) {
    const size_t total = points - inside;
    throw InputError(fmt::format("merge: {} grid point(s) missing (no shard holds them): {}{}",
                                 total, fmt::join(missing, ", "), total > 10 ? ", ..." : ""));
  }
  if (rows.size() != points || rows.rbegin()->first >= points)
    throw InputError(fmt::format("merge: rows outside the grid of {} points", points));
  ojson merged = first;
  merged["shard"] = {{"index", 0}, {"count", 1}};
  merged["rows"] = points;
  std::string csv = first_header + "\n";
  for (const auto& [i, line] : rows) csv += line + "\n";
  write_folder_atomically(out, force, [&](const fs::path& tmp) {
    write_text_file(tmp / "sweep.csv", csv);
    write_text_file(tmp / "sweep.json", merged.dump(2) + "\n");
  });
  return points;
}

}  // namespace slicelab
