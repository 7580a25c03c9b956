#include "reports/sweep_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

#include "planning/plan_metrics.h"
#include "reports/atomic_folder.h"
#include "reports/output_values.h"
#include "workloads/input_error.h"
#include "workloads/input_limits.h"
#include "workloads/text_file.h"

namespace slicelab {
namespace {

using ojson = nlohmann::ordered_json;

constexpr const char* kSweepFormat = "slicelab.sweep/1";

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
  j["format"] = kSweepFormat;
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

void check_sweep_manifest(const JsonFile& f) {
  const JsonAt root = f.at_root();
  f.require_object(root);
  const JsonAt kind = f.required(root, "kind");
  if (kind.value() != "sweep") f.fail_expected(kind, "\"sweep\" (a sweep.json of slicelab sweep)");
  with_member(root, "format", [&](const JsonAt& v) {
    if (v.value() != kSweepFormat)
      f.fail_expected(v, fmt::format("\"{}\" (the format this slicelab reads)", kSweepFormat));
  });
  for (const char* key : {"name", "scenario", "scenario_fnv1a"})
    with_member(root, key, [&](const JsonAt& v) { f.string(v); });
  // The count is not trusted: a forged "points": 1e12 made merge walk (and list) every index.
  const JsonAt points = f.required(root, "points");
  if (f.count(points, kMaxSweepPoints) == 0)
    f.fail(points, "the grid has no points (a sweep has at least one)");
  f.count(f.required(root, "rows"), kMaxSweepPoints);
  with_member(root, "shard", [&](const JsonAt& shard) {
    const JsonAt count = f.required(shard, "count");
    const JsonAt index = f.required(shard, "index");
    if (f.count(count, kMaxSweepPoints) == 0)
      f.fail_expected(count, "a number of shards of at least 1");
    if (f.count(index) >= f.count(count))
      f.fail_expected(index, fmt::format("a shard index below its count {} (0 to {})",
                                         f.count(count), f.count(count) - 1));
  });
  with_member(root, "grid", [&](const JsonAt& grid) {
    f.require_object(grid);
    with_member(grid, "order", [&](const JsonAt& v) { f.string(v); });
    with_member(grid, "policies", [&](const JsonAt& v) {
      f.require_array(v);
      for (size_t i = 0; i < v->size(); ++i) f.string(v.element(i));
    });
    for (const char* key : {"cluster_scales", "workload_scales"})
      with_member(grid, key, [&](const JsonAt& v) {
        f.require_array(v);
        for (size_t i = 0; i < v->size(); ++i)
          if (const JsonAt s = v.element(i); f.number(s) <= 0)
            f.fail_expected(s, "a scale above 0");
      });
    with_member(grid, "seeds", [&](const JsonAt& v) {
      f.require_array(v);
      for (size_t i = 0; i < v->size(); ++i) f.count(v.element(i));
    });
  });
}

size_t merge_sweeps(std::span<const std::string> shard_dirs, const std::string& out, bool force) {
  if (shard_dirs.empty()) throw InputError("merge: give at least one shard folder");
  namespace fs = std::filesystem;
  ojson first;
  std::string first_header;
  std::map<size_t, std::string> rows;  // grid index -> the row as written
  // The shards' count (all alike) and which indices were seen, with the folder of each.
  std::optional<uint64_t> shard_count;
  std::map<uint64_t, std::string> shard_of;
  for (const auto& dir : shard_dirs) {
    const fs::path d(dir);
    const std::string manifest_file = (d / "sweep.json").string();
    const JsonFile f(manifest_file);
    // Types checked here so that nlohmann's type_error (no file named) cannot come out below.
    check_sweep_manifest(f);
    const ojson& m = f.root();
    const size_t manifest_rows = m["rows"].get<size_t>();
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
    // Shards of one split: one count, each index once (a shard given twice would otherwise
    // be noticed only by its first row, and an empty one not at all).
    const JsonAt root = f.at_root();
    if (const std::optional<JsonAt> shard = root.member("shard")) {
      const uint64_t count = (*shard)->at("count").get<uint64_t>();
      const uint64_t index = (*shard)->at("index").get<uint64_t>();
      if (shard_count && *shard_count != count)
        f.fail(*shard, fmt::format("a shard of {}, where {} is one of {}", count,
                                   shard_of.begin()->second, *shard_count));
      shard_count = count;
      if (const auto [it, fresh] = shard_of.emplace(index, dir); !fresh)
        f.fail(*shard,
               fmt::format("shard {} of {} again: {} is that shard too", index, count, it->second));
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
  // Bounded by check_sweep_manifest; the first missing points are found in time linear in the
  // rows.
  const auto points = first["points"].get<size_t>();
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
