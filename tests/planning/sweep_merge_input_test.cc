// `slicelab merge` on hand-made shard folders whose sweep.json has the wrong shape: every case is
// an InputError at its file:line:col, never a json exception or a crash (cases seen while writing
// the sweep_merge fuzz target; the same inputs are replayed from
// tests/fuzz/regressions/sweep_merge/).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "planning/plan_metrics.h"
#include "reports/sweep_files.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

using testing::message_of;

class SweepMergeInput : public testing::TempFilesTest {
 protected:
  // One shard folder holding `manifest` and a sweep.csv of the real header plus `rows`.
  std::string shard(const std::string& name, const std::string& manifest,
                    const std::string& rows = "") {
    std::filesystem::create_directories(dir_ / name);
    std::string header = "point,policy,cluster_scale,workload_scale,seed,nodes,gpus,pods";
    for (const auto m : metric_names()) header += fmt::format(",{}", m);
    write(name + "/sweep.json", manifest);
    write(name + "/sweep.csv", header + "\n" + rows);
    return (dir_ / name).string();
  }
  std::string merge(const std::vector<std::string>& dirs) {
    return message_of([&] { merge_sweeps(dirs, (dir_ / "merged").string()); });
  }
};

TEST_F(SweepMergeInput, CountsOfTheWrongTypeAreLocatedErrors) {
  const std::string rows_text =
      shard("a", R"({"kind": "sweep", "points": 1, "rows": "1"})", "0,x\n");
  EXPECT_EQ(merge({rows_text}), rows_text +
                                    "/sweep.json:1:40: rows: expected a whole number "
                                    "from 0 to 1000000, found \"1\"");
  const std::string rows_negative = shard("b", R"({"kind": "sweep", "points": 1, "rows": -1})");
  EXPECT_NE(merge({rows_negative}).find(":1:40: rows: expected a whole number from 0 to 1000000"),
            std::string::npos);
  const std::string points_missing = shard("c", R"({"kind": "sweep", "rows": 1})", "0,x\n");
  EXPECT_EQ(merge({points_missing}),
            points_missing + "/sweep.json:1:1: top level: missing required key 'points'");
  const std::string points_float = shard("d", R"({"kind": "sweep", "points": 1.5, "rows": 0})");
  EXPECT_NE(merge({points_float})
                .find("points: expected a whole number from 0 to 1000000, "
                      "found 1.5"),
            std::string::npos);
  const std::string kind_number = shard("e", R"({"kind": 7, "points": 1, "rows": 0})");
  EXPECT_EQ(merge({kind_number}), kind_number +
                                      "/sweep.json:1:10: kind: expected \"sweep\" (a "
                                      "sweep.json of slicelab sweep), found 7");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "merged"));
}

// An empty grid with no rows looked at the last row of an empty map (undefined behaviour).
TEST_F(SweepMergeInput, AnEmptyGridIsRefused) {
  const std::string empty = shard("a", R"({"kind": "sweep", "points": 0, "rows": 0})");
  EXPECT_EQ(merge({empty}), empty +
                                "/sweep.json:1:29: points: the grid has no points (a sweep "
                                "has at least one)");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "merged"));
}

// Before: "index 5 of 0" and "index 2 of 2" merged silently, as did shards of different splits
// and one shard given twice whose rows were empty.
TEST_F(SweepMergeInput, ShardsMustBeOneSplitEachIndexOnce) {
  const std::string five_of_zero =
      shard("a", R"({"kind": "sweep", "points": 1, "rows": 1, "shard": {"index": 5, "count": 0}})",
            "0,x\n");
  EXPECT_EQ(merge({five_of_zero}), five_of_zero +
                                       "/sweep.json:1:74: shard.count: expected a "
                                       "number of shards of at least 1, found 0");
  const std::string two_of_two =
      shard("b", R"({"kind": "sweep", "points": 1, "rows": 1, "shard": {"index": 2, "count": 2}})",
            "0,x\n");
  EXPECT_EQ(merge({two_of_two}), two_of_two +
                                     "/sweep.json:1:62: shard.index: expected a shard "
                                     "index below its count 2 (0 to 1), found 2");
  // Two points split in two, and a shard of another split.
  const std::string first =
      shard("c", R"({"kind": "sweep", "points": 2, "rows": 1, "shard": {"index": 0, "count": 2}})",
            "0,x\n");
  const std::string other =
      shard("d", R"({"kind": "sweep", "points": 2, "rows": 1, "shard": {"index": 1, "count": 3}})",
            "1,x\n");
  EXPECT_EQ(merge({first, other}),
            other + "/sweep.json:1:52: shard: a shard of 3, where " + first + " is one of 2");
  // The same empty shard twice: no row to notice it by.
  const std::string empty =
      shard("e", R"({"kind": "sweep", "points": 2, "rows": 0, "shard": {"index": 1, "count": 2}})");
  EXPECT_EQ(merge({first, empty, empty}),
            empty + "/sweep.json:1:52: shard: shard 1 of 2 again: " + empty + " is that shard too");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "merged"));
  // The split it describes merges.
  const std::string second =
      shard("f", R"({"kind": "sweep", "points": 2, "rows": 1, "shard": {"index": 1, "count": 2}})",
            "1,x\n");
  EXPECT_EQ(merge_sweeps(std::vector<std::string>{first, second}, (dir_ / "merged").string()), 2U);
}

TEST_F(SweepMergeInput, AWellFormedSingleShardStillMerges) {
  const std::string one = shard("a", R"({"kind": "sweep", "points": 1, "rows": 1})", "0,x\n");
  EXPECT_EQ(merge_sweeps(std::vector<std::string>{one}, (dir_ / "merged").string()), 1U);
}

}  // namespace
}  // namespace slicelab
