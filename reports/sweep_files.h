// A sweep's outputs (sweep.csv, one row per grid point; sweep.json, the manifest) and the merge
// of shards' outputs into the result set an unsharded run writes, byte for byte. Nothing in
// them depends on time, host, thread count or shard: rows are keyed and sorted by grid index.
#pragma once

#include <nlohmann/json.hpp>

#include <span>
#include <string>
#include <vector>

#include "planning/sweep_grid.h"
#include "planning/sweep_runner.h"
#include "reports/json_reader.h"

namespace slicelab {

std::string sweep_csv(const SweepSpec& spec, std::span<const SweepRow> rows);
nlohmann::ordered_json sweep_manifest(const SweepSpec& spec, Shard shard, size_t rows);
// dir/{sweep.csv,sweep.json}; rows are sorted by grid index. Replaces dir atomically.
void write_sweep(const std::string& dir, const SweepSpec& spec, Shard shard,
                 std::vector<SweepRow> rows, bool force = false);

// Checks `f` as a sweep.json (the manifest above, as written or merged); throws InputError
// "FILE:LINE:COL: PATH: expected X, found Y" at the first value not as the format says:
// `kind` "sweep"; `format`, when given, "slicelab.sweep/1"; `points` a whole number of 1 to
// kMaxSweepPoints and `rows` one of at least 0; `shard`, when given, whole numbers `index` and
// `count` with index < count; `grid`, when given, string `policies`, positive scales and whole
// seeds. Keys it does not know are left alone.
void check_sweep_manifest(const JsonFile& f);

// Joins shard folders into `out`: every folder's manifest must describe the same sweep, and
// together their rows must hold every grid point exactly once, and their `shard`s be of one
// count, each index once. Returns the number of rows.
// InputError naming the folder and the problem otherwise; nothing is written then.
size_t merge_sweeps(std::span<const std::string> shard_dirs, const std::string& out,
                    bool force = false);

}  // namespace slicelab
