// Pins down the exact error of every malformed results file in tests/malformed/results/ (a
// summary.json, plan.json or sweep.json of the wrong shape): the file, 1-based line:column, the
// value's path, what was expected and what was found. Before, these reached the user as
// nlohmann's own messages ("cannot use value() with array", "type must be boolean, but is
// string") or were read silently (a format of another version, negative counts, a shard index
// past its count).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "planning/plan_metrics.h"
#include "reports/json_location.h"
#include "reports/json_reader.h"
#include "reports/report_data.h"
#include "reports/results_diff.h"
#include "reports/sweep_files.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using testing::message_of;

const fs::path kFixtures = fs::path(SLICELAB_SOURCE_DIR) / "tests/malformed/results";

struct Case {
  const char* file;     // in tests/malformed/results/
  const char* message;  // the whole message, with the file read as "{file}"
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.file;
}

// Kept in file-name order; EveryFileHasACase fails when a file has no row here.
const Case kCases[] = {
    {"plan_feasible_string.json",
     "{file}:2:43: policies[0].feasible: expected true or false, found \"yes\""},
    {"plan_meets_string.json",
     "{file}:2:80: policies[0].curve[0].meets: expected true or false, found \"no\""},
    {"plan_not_a_plan.json",
     "{file}:1:10: kind: expected \"plan\" (a plan.json of slicelab plan), found \"sweep\""},
    {"summary_duplicate_policy.json",
     "{file}:3:24: policies[2].name: policy 'a' is also policies[0]: names must differ"},
    {"summary_figure_string.json",
     "{file}:4:56: policies[0].queue_delay_s.p99: expected a number, found \"fast\""},
    {"summary_format_99.json",
     "{file}:1:12: format: expected 'slicelab.summary/1' or 'slicelab.seeds/1' (the formats "
     "this slicelab reads), found \"summary/99\""},
    {"summary_group_not_object.json", "{file}:1:69: policies[0].pods: expected an object, found 3"},
    {"summary_list.json", "{file}:1:1: top level: expected an object, found a list"},
    {"summary_negative_count.json",
     "{file}:6:53: policies[1].pods.completed: expected a whole number of at least 0, found -5"},
    {"summary_policies_not_list.json", "{file}:1:46: policies: expected a list, found an object"},
    {"summary_policy_without_name.json", "{file}:1:47: policies[0]: missing required key 'name'"},
    {"summary_seed_negative.json",
     "{file}:1:45: seeds[1]: expected a whole number of at least 0, found -2"},
    {"summary_warning_not_string.json",
     "{file}:2:70: decision.warnings[1]: expected a string, found 7"},
    {"sweep_format_2.json",
     "{file}:1:29: format: expected \"slicelab.sweep/1\" (the format this slicelab reads), found "
     "\"slicelab.sweep/2\""},
    {"sweep_scale_negative.json",
     "{file}:2:52: grid.cluster_scales[1]: expected a scale above 0, found -0.5"},
    {"sweep_shard_5_of_0.json",
     "{file}:2:33: shard.count: expected a number of shards of at least 1, found 0"},
    {"sweep_shard_index_past_count.json",
     "{file}:2:21: shard.index: expected a shard index below its count 2 (0 to 1), found 2"},
};

class ResultsJsonErrors : public testing::TempFilesTest,
                          public ::testing::WithParamInterface<Case> {
 protected:
  // The fixture copied into a folder of its own under the name its reader looks for.
  fs::path place(const std::string& fixture, const std::string& as) {
    fs::path folder = dir_ / "r";
    fs::create_directories(folder);
    fs::copy_file(kFixtures / fixture, folder / as);
    return folder;
  }
};

std::string expected(const Case& c, const fs::path& file) {
  std::string m = c.message;
  const std::string key = "{file}";
  m.replace(m.find(key), key.size(), file.string());
  return m;
}

TEST_P(ResultsJsonErrors, EachFileIsRefusedAtItsValue) {
  const Case& c = GetParam();
  const std::string name = c.file;
  if (name.starts_with("summary_")) {
    const fs::path folder = place(name, "summary.json");
    const std::string want = expected(c, folder / "summary.json");
    // Both readers of summary.json: the report and diff.
    EXPECT_EQ(message_of([&] { load_report_data(folder); }), want);
    EXPECT_EQ(message_of([&] { diff_results(folder, folder); }), want);
  } else if (name.starts_with("plan_")) {
    const fs::path folder = place(name, "plan.json");
    EXPECT_EQ(message_of([&] { load_report_data(folder); }), expected(c, folder / "plan.json"));
  } else {
    const fs::path folder = place(name, "sweep.json");
    std::string csv = "point,policy,cluster_scale,workload_scale,seed,nodes,gpus,pods";
    for (const auto m : metric_names()) csv += "," + std::string(m);
    write("r/sweep.csv", csv + "\n0,a\n");
    const std::string shards[] = {folder.string()};
    EXPECT_EQ(message_of([&] { merge_sweeps(shards, (dir_ / "merged").string()); }),
              expected(c, folder / "sweep.json"));
    EXPECT_FALSE(fs::exists(dir_ / "merged"));
  }
}

// The case's file without ".json", as the test's name.
std::string case_name(const ::testing::TestParamInfo<Case>& param) {
  const std::string n = param.param.file;
  return n.substr(0, n.find('.'));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ResultsJsonErrors, ::testing::ValuesIn(kCases), case_name);

TEST(ResultsJsonErrors, EveryFileHasACase) {
  std::set<std::string> listed;
  for (const Case& c : kCases) listed.insert(c.file);
  for (const auto& e : fs::directory_iterator(kFixtures))
    EXPECT_TRUE(listed.contains(e.path().filename().string()))
        << e.path() << " has no case in kCases";
}

// A repeated key names the last one (the value the parser kept); a key with an escape is found
// by its decoded name; a step that cannot be followed names the container it starts from.
TEST(JsonLocation, FindsTheValueThePathNames) {
  const std::string text = "{\"a\": 1,\n \"b\": [10, {\"c\\u0064\": 2}],\n \"a\": 3}";
  const JsonStep a[] = {{"a", 0, false}};
  EXPECT_EQ(json_value_position(text, a).line, 3U);
  EXPECT_EQ(json_value_position(text, a).column, 7U);
  const JsonStep cd[] = {{"b", 0, false}, {{}, 1, true}, {"cd", 0, false}};
  EXPECT_EQ(json_value_position(text, cd).line, 2U);
  EXPECT_EQ(json_value_position(text, cd).column, 24U);
  const JsonStep missing[] = {{"b", 0, false}, {{}, 5, true}};
  EXPECT_EQ(json_value_position(text, missing).column, 7U);  // the list
  EXPECT_EQ(json_path_text(cd), "b[1].cd");
  EXPECT_EQ(json_path_text({}), "top level");
}

// The position scan is linear: a key 2,000 characters long and 100,000 policies are located
// without a quadratic search (ctest's timeout is the guard; no timing is asserted).
TEST(JsonLocation, LongKeysAndManyValuesAreLocated) {
  const std::string key(2000, 'k');
  std::string text = "{\"" + key + "\": 1, \"policies\": [";
  for (int i = 0; i < 100'000; ++i) text += "{\"name\": \"p" + std::to_string(i) + "\"}, ";
  text += "{\"name\": 7}]}";
  JsonFile f("mem.json", text);
  const JsonAt root = f.at_root();
  const JsonAt policies = f.required(root, "policies");
  const JsonAt last = policies.element(100'000);
  const JsonAt name = f.required(last, "name");
  EXPECT_EQ(message_of([&] { f.string(name); }),
            fmt::format("mem.json:1:{}: policies[100000].name: expected a string, found 7",
                        text.size() - 3));
}

}  // namespace
}  // namespace slicelab
