// Pins down YamlReader: the values it accepts (durations, MiB sizes, ranges, booleans, lists) and
// the exact located message ("file:line:col: path: expected X, found Y") for everything else.
#include "workloads/yaml_reader.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>

#include "workloads/input_error.h"
#include "workloads/yaml_syntax_check.h"
#include "workloads/input_limits.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;

const YamlReader kYaml("t.yaml");

// The value of key `v` in a one-line document "v: <text>": line 1, column 4.
YAML::Node value(const std::string& text) {
  const YAML::Node root = YAML::Load("v: " + text);
  return root["v"];
}

// The InputError message `f` throws, or a marker that makes any expectation fail.
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

// ---- durations -----------------------------------------------------------------------------

TEST(YamlReaderDuration, AcceptsUnitsAndPlainSeconds) {
  EXPECT_DOUBLE_EQ(kYaml.duration(value("90s"), "v"), 90.0);
  EXPECT_DOUBLE_EQ(kYaml.duration(value("15m"), "v"), 900.0);
  EXPECT_DOUBLE_EQ(kYaml.duration(value("2h"), "v"), 7200.0);
  EXPECT_DOUBLE_EQ(kYaml.duration(value("1.5d"), "v"), 129600.0);
  EXPECT_DOUBLE_EQ(kYaml.duration(value("45"), "v"), 45.0);
  EXPECT_DOUBLE_EQ(kYaml.duration(value("2.5"), "v"), 2.5);
  EXPECT_DOUBLE_EQ(kYaml.duration(value("0.25h"), "v"), 900.0);
  EXPECT_DOUBLE_EQ(kYaml.duration(value("0"), "v"), 0.0);
  EXPECT_DOUBLE_EQ(kYaml.duration(value("'30m'"), "v"), 1800.0);  // quoted is the same
}

TEST(YamlReaderDuration, MinimumIsInclusive) {
  EXPECT_DOUBLE_EQ(kYaml.duration(value("1s"), "v", 1.0), 1.0);
  EXPECT_EQ(error_of([] { kYaml.duration(value("0.5s"), "v", 1.0); }),
            "t.yaml:1:4: v: expected a duration of at least 1s (seconds, or a number with s, m, h "
            "or d), found '0.5s'");
  // The minimum applies after the unit: 1m is 60 seconds.
  EXPECT_DOUBLE_EQ(kYaml.duration(value("1m"), "v", 60.0), 60.0);
}

TEST(YamlReaderDuration, RejectsWhatIsNotADuration) {
  const std::string expected =
      "expected a duration of at least 0.001s (seconds, or a number with s, m, h or d), found ";
  for (const std::string bad :
       {"90min", "1h30m", "2hr", "h", "5 m", "abc", "-5s", "2H", "nan", "inf", "1e400"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(error_of([&] { kYaml.duration(value(bad), "pod.duration", 0.001); }),
              "t.yaml:1:4: pod.duration: " + expected + "'" + bad + "'");
  }
  EXPECT_EQ(error_of([] { kYaml.duration(value("[1, 2]"), "d", 0.001); }),
            "t.yaml:1:4: d: " + expected + "a list");
  EXPECT_EQ(error_of([] { kYaml.duration(value("{s: 1}"), "d", 0.001); }),
            "t.yaml:1:4: d: " + expected + "a mapping");
}

TEST(YamlReaderDuration, NullIsNothing) {
  EXPECT_EQ(error_of([] { kYaml.duration(value("~"), "pod.duration"); }),
            "t.yaml:1:4: pod.duration: expected a duration of at least 0s (seconds, or a number "
            "with s, m, h or d), found nothing");
}

// ---- sizes in MiB --------------------------------------------------------------------------

TEST(YamlReaderMebibytes, AcceptsUnitsAndPlainIntegers) {
  EXPECT_EQ(kYaml.mebibytes(value("512Mi"), "v"), 512);
  EXPECT_EQ(kYaml.mebibytes(value("16Gi"), "v"), 16384);
  EXPECT_EQ(kYaml.mebibytes(value("1Ti"), "v"), 1048576);
  EXPECT_EQ(kYaml.mebibytes(value("0.5Gi"), "v"), 512);
  EXPECT_EQ(kYaml.mebibytes(value("2048"), "v"), 2048);
  EXPECT_EQ(kYaml.mebibytes(value("0"), "v"), 0);
}

TEST(YamlReaderMebibytes, RejectsOtherUnitsAndNegatives) {
  const std::string expected =
      "expected a size in MiB (an integer, or a number with Mi, Gi or Ti), found ";
  for (const std::string bad :
       {"16GB", "16G", "16gi", "512MB", "-1", "-1Gi", "Gi", "lots", "1Pi"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(error_of([&] { kYaml.mebibytes(value(bad), "gpu_memory_mib"); }),
              "t.yaml:1:4: gpu_memory_mib: " + expected + "'" + bad + "'");
  }
  EXPECT_EQ(error_of([] { kYaml.mebibytes(value("{size: 1}"), "m"); }),
            "t.yaml:1:4: m: " + expected + "a mapping");
}

// ---- integers and numbers ------------------------------------------------------------------

TEST(YamlReaderInteger, BoundsAreInclusive) {
  EXPECT_EQ(kYaml.integer(value("1"), "v", 1, 1000), 1);
  EXPECT_EQ(kYaml.integer(value("1000"), "v", 1, 1000), 1000);
  EXPECT_EQ(kYaml.integer(value("-3"), "v", -5, 5), -3);
  for (const std::string bad : {"0", "1001", "-1"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(error_of([&] { kYaml.integer(value(bad), "gpu_milli", 1, 1000); }),
              "t.yaml:1:4: gpu_milli: expected an integer in 1..1000, found '" + bad + "'");
  }
}

TEST(YamlReaderInteger, RejectsNonIntegers) {
  for (const std::string bad :
       {"1.5", "1e3", "ten", "0x10", "1_000", "true", "99999999999999999999"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(error_of([&] { kYaml.integer(value(bad), "count", 0, 100); }),
              "t.yaml:1:4: count: expected an integer in 0..100, found '" + bad + "'");
  }
  EXPECT_EQ(error_of([] { kYaml.integer(value("[1]"), "count", 0, 100); }),
            "t.yaml:1:4: count: expected an integer in 0..100, found a list");
}

TEST(YamlReaderInteger, UnboundedMaximumIsNotSpelledOut) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(kYaml.integer(value("9223372036854775807"), "seed", 0, kMax), kMax);
  EXPECT_EQ(error_of([] { kYaml.integer(value("-1"), "seed", 0, kMax); }),
            "t.yaml:1:4: seed: expected an integer of at least 0, found '-1'");
}

TEST(YamlReaderNumber, RangeAndFormatting) {
  EXPECT_DOUBLE_EQ(kYaml.number(value("0.5"), "v", 0.0, 1.0), 0.5);
  EXPECT_DOUBLE_EQ(kYaml.number(value("1e-3"), "v", 0.0, 1.0), 0.001);
  EXPECT_DOUBLE_EQ(kYaml.number(value("1"), "v", 0.0, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(kYaml.number(value("7"), "v", 0.0, 100.0), 7.0);
  EXPECT_EQ(error_of([] { kYaml.number(value("1.01"), "overhead", 0.0, 0.99); }),
            "t.yaml:1:4: overhead: expected a number in 0..0.99, found '1.01'");
  EXPECT_EQ(error_of([] { kYaml.number(value("0"), "speed", 0.001, 1000); }),
            "t.yaml:1:4: speed: expected a number in 0.001..1000, found '0'");
  EXPECT_EQ(error_of([] { kYaml.number(value("fast"), "speed", 0.001, 1000); }),
            "t.yaml:1:4: speed: expected a number in 0.001..1000, found 'fast'");
  EXPECT_EQ(error_of([] { kYaml.number(value(".nan"), "speed", 0.001, 1000); }),
            "t.yaml:1:4: speed: expected a number in 0.001..1000, found '.nan'");
}

// ---- booleans, strings, lists --------------------------------------------------------------

TEST(YamlReaderBoolean, AcceptsYamlSpellings) {
  for (const std::string t : {"true", "True", "TRUE", "yes", "on"})
    EXPECT_TRUE(kYaml.boolean(value(t), "v")) << t;
  for (const std::string f : {"false", "False", "FALSE", "no", "off"})
    EXPECT_FALSE(kYaml.boolean(value(f), "v")) << f;
  for (const std::string bad : {"1", "0", "enabled", "tRUE"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(error_of([&] { kYaml.boolean(value(bad), "mig"); }),
              "t.yaml:1:4: mig: expected true or false, found '" + bad + "'");
  }
}

TEST(YamlReaderString, RejectsEmptyAndNonScalars) {
  EXPECT_EQ(kYaml.string(value("A100-80GB"), "v"), "A100-80GB");
  EXPECT_EQ(kYaml.string(value("42"), "v"), "42");
  EXPECT_EQ(error_of([] { kYaml.string(value("''"), "name"); }),
            "t.yaml:1:4: name: expected a non-empty string, found ''");
  EXPECT_EQ(error_of([] { kYaml.string(value("[a, b]"), "name"); }),
            "t.yaml:1:4: name: expected a non-empty string, found a list");
}

TEST(YamlReaderStringList, ScalarOrListOfStrings) {
  EXPECT_EQ(kYaml.string_list(value("T4"), "m"), std::vector<std::string>{"T4"});
  EXPECT_EQ(kYaml.string_list(value("[T4, L4]"), "m"), (std::vector<std::string>{"T4", "L4"}));
  EXPECT_EQ(error_of([] { kYaml.string_list(value("{a: T4}"), "models"); }),
            "t.yaml:1:4: models: expected a string or a list of strings, found a mapping");
  // An element names its own index and column.
  EXPECT_EQ(error_of([] { kYaml.string_list(value("[T4, [L4]]"), "models"); }),
            "t.yaml:1:9: models[1]: expected a non-empty string, found a list");
}

// ---- mappings: unknown keys, duplicates, required keys -------------------------------------

TEST(YamlReaderKeys, UnknownKeySuggestsTheClosest) {
  const YAML::Node root = YAML::Load("name: x\ncount: 2\ngpu_modle: T4\n");
  EXPECT_EQ(error_of([&] {
              kYaml.check_keys(root, "group", {"name", "count", "gpu_model"});
            }),
            "t.yaml:3:1: group: unknown key 'gpu_modle' (did you mean 'gpu_model'?)");
}

TEST(YamlReaderKeys, SuggestsByPrefixAndCase) {
  EXPECT_EQ(error_of([] {
              kYaml.check_keys(YAML::Load("max_queue_delay: 1m"), "slo", {"max_queue", "max_jct"});
            }),
            "t.yaml:1:1: slo: unknown key 'max_queue_delay' (did you mean 'max_queue'?)");
  EXPECT_EQ(error_of([] {
              kYaml.check_keys(YAML::Load("memory: 8Gi"), "pod", {"cpu_milli", "memory_mib"});
            }),
            "t.yaml:1:1: pod: unknown key 'memory' (did you mean 'memory_mib'?)");
  EXPECT_EQ(error_of([] {
              kYaml.check_keys(YAML::Load("Name: x"), "pod", {"name", "class"});
            }),
            "t.yaml:1:1: pod: unknown key 'Name' (did you mean 'name'?)");
}

TEST(YamlReaderKeys, NoSuggestionWhenNothingIsClose) {
  EXPECT_EQ(error_of([] {
              kYaml.check_keys(YAML::Load("tolerations: []"), "pod", {"name", "duration"});
            }),
            "t.yaml:1:1: pod: unknown key 'tolerations'");
}

TEST(YamlReaderKeys, TopLevelIsNamed) {
  EXPECT_EQ(error_of([] {
              kYaml.check_keys(YAML::Load("a: 1\nplicies: []"), "", {"a", "policies"});
            }),
            "t.yaml:2:1: top level: unknown key 'plicies' (did you mean 'policies'?)");
  EXPECT_EQ(error_of([] { kYaml.required(YAML::Load("a: 1"), "", "cluster"); }),
            "t.yaml:1:1: top level: missing required key 'cluster'");
}

TEST(YamlReaderKeys, DuplicateKeyIsAnError) {
  const YAML::Node root = YAML::Load("duration: 1h\ngpu_count: 1\nduration: 2h\n");
  EXPECT_EQ(error_of([&] {
              kYaml.check_keys(root, "pod", {"duration", "gpu_count"});
            }),
            "t.yaml:3:1: pod: duplicate key 'duration' (also on line 1)");
}

TEST(YamlReaderKeys, AcceptsAllowedKeys) {
  const YAML::Node root = YAML::Load("{name: x, count: 2}");
  EXPECT_NO_THROW(kYaml.check_keys(root, "group", {"name", "count", "gpu_model"}));
}

TEST(YamlReaderKeys, CheckKeysNeedsAMapping) {
  EXPECT_EQ(error_of([] { kYaml.check_keys(value("[1, 2]"), "cluster", {"node_groups"}); }),
            "t.yaml:1:4: cluster: expected a mapping, found a list");
  EXPECT_EQ(error_of([] { kYaml.require_seq(value("{a: 1}"), "policies"); }),
            "t.yaml:1:4: policies: expected a list, found a mapping");
}

TEST(YamlReaderKeys, RequiredPointsAtTheMapping) {
  const YAML::Node root = YAML::Load("pods:\n  - name: a\n    gpu_count: 1\n");
  const YAML::Node pod = root["pods"][0];
  EXPECT_EQ(error_of([&] { kYaml.required(pod, "pods[0]", "duration"); }),
            "t.yaml:2:5: pods[0]: missing required key 'duration'");
  EXPECT_EQ(kYaml.required(pod, "pods[0]", "name").Scalar(), "a");
}

// ---- optional keys -------------------------------------------------------------------------

TEST(YamlReaderOptional, AbsentIsNulloptPresentIsReadWithItsPath) {
  const YAML::Node root = YAML::Load("engine:\n  until: 2h\n  sample_interval: 5x\n");
  const YAML::Node engine = root["engine"];
  EXPECT_FALSE(kYaml.opt_duration(engine, "engine", "queue").has_value());
  EXPECT_FALSE(kYaml.opt_string(engine, "engine", "queue").has_value());
  EXPECT_FALSE(kYaml.opt_integer(engine, "engine", "queue", 0, 1).has_value());
  EXPECT_FALSE(kYaml.opt_number(engine, "engine", "queue", 0, 1).has_value());
  EXPECT_FALSE(kYaml.opt_mebibytes(engine, "engine", "queue").has_value());
  EXPECT_EQ(kYaml.opt_duration(engine, "engine", "until"), 7200.0);
  EXPECT_EQ(error_of([&] { kYaml.opt_duration(engine, "engine", "sample_interval"); }),
            "t.yaml:3:20: engine.sample_interval: expected a duration of at least 0s (seconds, or "
            "a number with s, m, h or d), found '5x'");
}

// ---- locations -----------------------------------------------------------------------------

TEST(YamlReaderLocation, LineAndColumnAreOneBased) {
  const YAML::Node root = YAML::Load("a: 1\nb:\n  c: 5x\n  d: [1, 2, oops]\n");
  EXPECT_EQ(error_of([&] { kYaml.duration(root["b"]["c"], "b.c"); }),
            "t.yaml:3:6: b.c: expected a duration of at least 0s (seconds, or a number with s, m, "
            "h or d), found '5x'");
  EXPECT_EQ(error_of([&] { kYaml.integer(root["b"]["d"][2], "b.d[2]", 0, 9); }),
            "t.yaml:4:13: b.d[2]: expected an integer in 0..9, found 'oops'");
  EXPECT_EQ(error_of([&] { kYaml.fail(root["a"], "a", "custom text"); }),
            "t.yaml:1:4: a: custom text");
}

TEST(YamlReaderLocation, UndefinedNodeHasNoLocation) {
  const YAML::Node root = YAML::Load("a: 1");
  EXPECT_EQ(error_of([&] { kYaml.fail(root["missing"], "missing", "is gone"); }),
            "t.yaml: missing: is gone");
}

TEST(YamlReaderPaths, JoinAndIndex) {
  EXPECT_EQ(join_path("", "cluster"), "cluster");
  EXPECT_EQ(join_path("cluster", "node_groups"), "cluster.node_groups");
  EXPECT_EQ(index_path("policies", 3), "policies[3]");
  EXPECT_EQ(join_path(index_path("policies", 0), "name"), "policies[0].name");
}

// ---- files ---------------------------------------------------------------------------------

class YamlFile : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "slicelab-yaml-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  fs::path dir_;
};

TEST_F(YamlFile, LoadsAGoodFile) {
  const YAML::Node root = load_yaml_file(write("ok.yaml", "a: 1\nb: [x, y]\n"));
  EXPECT_EQ(root["a"].Scalar(), "1");
  EXPECT_EQ(root["b"].size(), 2U);
}

TEST_F(YamlFile, SyntaxErrorIsLocated) {
  const std::string path = write("bad.yaml", "a: 1\nb: [x, y\nc: 2\n");
  EXPECT_EQ(error_of([&] { load_yaml_file(path); }),
            path + ":3:2: invalid YAML: end of sequence flow not found");
}

TEST_F(YamlFile, TabIndentationIsNamed) {
  const std::string path = write("tab.yaml", "a:\n  - 1\n\t- 2\n");
  EXPECT_EQ(error_of([&] { load_yaml_file(path); }),
            path +
                ":3:1: invalid YAML: illegal tab when looking for indentation (this line is "
                "indented with a tab; YAML indentation must use spaces)");
}

TEST_F(YamlFile, NoTabHintForOtherSyntaxErrors) {
  const std::string path = write("colon.yaml", "a: b: c\n");
  const std::string message = error_of([&] { load_yaml_file(path); });
  ASSERT_EQ(message.rfind(path + ":1:5: invalid YAML: ", 0), 0U) << message;
  // Only the text after the path: the temporary folder's random name may itself contain "tab".
  EXPECT_EQ(message.substr(path.size()).find("tab"), std::string::npos) << message;
}

// yaml-cpp places an empty value at the next token (here line 3); the loader names its key.
TEST_F(YamlFile, EmptyValueIsLocatedAtItsKey) {
  const std::string path = write("empty_value.yaml", "pods:\n  - duration:\n    gpu_count: 1\n");
  EXPECT_EQ(error_of([&] { load_yaml_file(path); }),
            path + ":2:5: pods[0].duration: expected a value, found nothing");
  const std::string nested = write("nested.yaml", "a:\n  b:\n    - [1, {c: }]\n");
  EXPECT_EQ(error_of([&] { load_yaml_file(nested); }),
            nested + ":3:12: a.b[0][1].c: expected a value, found nothing");
  // Empty strings and empty lists are values.
  EXPECT_NO_THROW(load_yaml_file(write("ok.yaml", "a: ''\nb: []\nc: {}\n")));
}

TEST_F(YamlFile, MissingFileAndFolder) {
  const std::string missing = (dir_ / "nope.yaml").string();
  EXPECT_EQ(error_of([&] { load_yaml_file(missing); }), missing + ": cannot open file");
  EXPECT_EQ(error_of([&] { load_yaml_file(dir_.string()); }),
            dir_.string() + ": cannot open file: it is a folder");
}

// ---- syntax checks before any node is built (check_yaml_syntax) -------------------------------

// Before: the empty-value search followed every alias, 9^9 strings here, until memory ran out.
TEST_F(YamlFile, AnchorsAndAliasesAreRefused) {
  std::string bomb = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (char c = 'b'; c <= 'j'; ++c)
    bomb += fmt::format("{0}: &{0} [*{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}]\n", c,
                        static_cast<char>(c - 1));
  bomb += "k:\n";
  const std::string path = write("bomb.yaml", bomb);
  EXPECT_EQ(error_of([&] { load_yaml_file(path); }),
            path + ":1:4: a: YAML anchors ('&a') are not supported; write the value out where it "
                   "is needed");
  const std::string merge = write("merge.yaml", "base: {x: 1}\nother:\n  <<: *base\n");
  EXPECT_EQ(error_of([&] { load_yaml_file(merge); }).rfind(merge + ":3:7: invalid YAML: ", 0), 0U);
}

TEST_F(YamlFile, NestingDepthIsLimited) {
  const auto nested = [](int levels) {
    return "a: " + std::string(static_cast<size_t>(levels - 1), '[') +
           std::string(static_cast<size_t>(levels - 1), ']') + "\n";
  };
  EXPECT_NO_THROW(load_yaml_file(write("ok.yaml", nested(kMaxYamlDepth))));
  const std::string deep = write("deep.yaml", nested(kMaxYamlDepth + 1));
  std::string field = "a";
  for (int i = 0; i < kMaxYamlDepth - 1; ++i) field += "[0]";
  EXPECT_EQ(error_of([&] { load_yaml_file(deep); }),
            deep + ":1:67: " + field + ": nested deeper than 64 levels of mappings and lists");
  // 100,000 levels: refused at level 65, not a stack overflow in the parser.
  const std::string very = write("very.yaml", nested(100000));
  EXPECT_EQ(error_of([&] { load_yaml_file(very); }).rfind(very + ":1:67: ", 0), 0U);
}

// Every mapping, not only those read with check_keys: user-named maps (GPU models, workload
// classes, MIG configurations and devices, plan targets) included.
TEST_F(YamlFile, DuplicateKeysInAnyMappingAreRefused) {
  const std::string path =
      write("dup.yaml", "models:\n  G1: {a: 1}\n  list:\n    - {x: 1, y: 2}\n    - {x: 1, x: 2}\n");
  EXPECT_EQ(error_of([&] { load_yaml_file(path); }),
            path + ":5:14: models.list[1]: duplicate key 'x' (also on line 5)");
  const std::string top = write("top.yaml", "a: 1\nb: 2\na: 3\n");
  EXPECT_EQ(error_of([&] { load_yaml_file(top); }),
            top + ":3:1: top level: duplicate key 'a' (also on line 1)");
  // The same key in sibling mappings is fine, as is a mapping used as a key.
  EXPECT_NO_THROW(load_yaml_file(write("ok.yaml", "a: {x: 1}\nb: {x: 2}\n? [k]\n: v\n")));
}

TEST_F(YamlFile, OneDocumentOnly) {
  const std::string two = write("two.yaml", "a: 1\n---\nb: 2\n");
  EXPECT_EQ(error_of([&] { load_yaml_file(two); }),
            two + ":2:1: top level: a second YAML document ('---' after the first); a file holds "
                  "one document");
  // A leading '---' and a closing '...' mark the one document.
  EXPECT_NO_THROW(load_yaml_file(write("ok.yaml", "---\na: 1\n...\n")));
}

TEST_F(YamlFile, InvalidUtf8IsLocated) {
  const std::string path = write("latin1.yaml", "a: 1\nname: caf\xE9\n");
  EXPECT_EQ(error_of([&] { load_yaml_file(path); }),
            path + ":2:10: invalid UTF-8 (byte 0xE9); the file must be UTF-8 text");
  EXPECT_NO_THROW(load_yaml_file(write("ok.yaml", "name: caf\xC3\xA9\n")));
}

TEST_F(YamlFile, SizeLimit) {
  const std::string path = write("big.yaml", "a: " + std::string(100, 'x') + "\n");
  EXPECT_EQ(error_of([&] { load_yaml_file(path, 64); }),
            path + ": cannot read: larger than the limit of 64 bytes for this input");
}

// What a reader lets escape from yaml-cpp still names the file.
TEST_F(YamlFile, EscapedYamlCppExceptionsNameTheFile) {
  const YAML::Node root = load_yaml_file(write("m.yaml", "a: {b: 1}\n"));
  try {
    (void)root["missing"].IsScalar();  // a missing key's node throws InvalidNode
    FAIL() << "yaml-cpp did not throw";
  } catch (const YAML::Exception& e) {
    EXPECT_EQ(located_yaml_error("m.yaml", e).what(),
              std::string("m.yaml: invalid node; first invalid key: \"missing\""));
  }
  try {
    (void)root["a"].as<int>();
    FAIL() << "yaml-cpp did not throw";
  } catch (const YAML::Exception& e) {
    EXPECT_EQ(located_yaml_error("m.yaml", e).what(), std::string("m.yaml:1:4: bad conversion"));
  }
}

TEST_F(YamlFile, EmptyFileIsNotAMapping) {
  const std::string path = write("empty.yaml", "");
  const YamlReader reader(path);
  const YAML::Node root = load_yaml_file(path);
  EXPECT_EQ(error_of([&] { reader.check_keys(root, "", {"a"}); }),
            path + ": top level: expected a mapping, found nothing");
}

}  // namespace
}  // namespace slicelab

namespace slicelab {
namespace {

// A duration is at most the simulation horizon in seconds, including one that becomes
// infinite only after its unit is applied.
TEST(YamlReaderDuration, BeyondTheHorizonAndOverflowAreRefused) {
  EXPECT_DOUBLE_EQ(kYaml.duration(value("365d"), "v"), kHorizonS);
  for (const char* text : {"366d", "1e15", "1e308h", "1e20"})
    EXPECT_EQ(error_of([&] { kYaml.duration(value(text), "v"); }),
              fmt::format("t.yaml:1:4: v: expected a duration of at most 365d (the simulation "
                          "horizon), found '{}'",
                          text))
        << text;
  for (const char* text : {".inf", "inf", "nan", ".nan", "1e309"})
    EXPECT_EQ(error_of([&] { kYaml.number(value(text), "v", 0, 1e300); }),
              fmt::format("t.yaml:1:4: v: expected a number in 0..1e+300, found '{}'", text))
        << text;
}

// Checking a mapping's keys is linear: 200,000 keys with a repeat at the end took minutes when
// every key was compared with every earlier one. No timing is asserted; ctest's timeout is the
// guard.
TEST(YamlReaderKeys, ManyKeysAreCheckedInLinearTime) {
  std::string text;
  for (int i = 0; i < 200'000; ++i) text += fmt::format("k{}: {}\n", i, i);
  const YAML::Node map = YAML::Load(text + "k5: 1\n");
  EXPECT_NE(error_of([&] { kYaml.check_keys(map, "m", {"a"}); }).find("duplicate key 'k5'"),
            std::string::npos);
}

}  // namespace
}  // namespace slicelab
