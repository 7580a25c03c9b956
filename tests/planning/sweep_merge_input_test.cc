// `slicelab merge` on hand-made shard folders whose sweep.json has the wrong shape: every case is
// a located InputError, never a json exception or a crash (cases seen while writing the
// sweep_merge fuzz target; the same inputs are replayed from tests/fuzz/regressions/sweep_merge/).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "reports/sweep_files.h"
#include "sim/planning/plan_metrics.h"
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
  EXPECT_EQ(merge({rows_text}),
            rows_text + "/sweep.json: not a sweep manifest: 'rows' must be a non-negative integer");
  const std::string rows_negative = shard("b", R"({"kind": "sweep", "points": 1, "rows": -1})");
  EXPECT_NE(merge({rows_negative}).find("'rows' must be a non-negative integer"),
            std::string::npos);
  const std::string points_missing = shard("c", R"({"kind": "sweep", "rows": 1})", "0,x\n");
  EXPECT_EQ(merge({points_missing}),
            points_missing +
                "/sweep.json: not a sweep manifest: 'points' must be a non-negative integer");
  const std::string points_float = shard("d", R"({"kind": "sweep", "points": 1.5, "rows": 0})");
  EXPECT_NE(merge({points_float}).find("'points' must be"), std::string::npos);
  const std::string kind_number = shard("e", R"({"kind": 7, "points": 1, "rows": 0})");
  EXPECT_EQ(merge({kind_number}),
            kind_number + "/sweep.json: not a sweep manifest (kind is not 'sweep')");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "merged"));
}

// An empty grid with no rows looked at the last row of an empty map (undefined behaviour).
TEST_F(SweepMergeInput, AnEmptyGridIsRefused) {
  const std::string empty = shard("a", R"({"kind": "sweep", "points": 0, "rows": 0})");
  EXPECT_EQ(merge({empty}), empty + "/sweep.json: not a sweep manifest: the grid has no points");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "merged"));
}

TEST_F(SweepMergeInput, AWellFormedSingleShardStillMerges) {
  const std::string one = shard("a", R"({"kind": "sweep", "points": 1, "rows": 1})", "0,x\n");
  EXPECT_EQ(merge_sweeps(std::vector<std::string>{one}, (dir_ / "merged").string()), 1U);
}

}  // namespace
}  // namespace slicelab
