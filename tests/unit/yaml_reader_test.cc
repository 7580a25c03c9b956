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
#include "workloads/input_limits.h"
#include "workloads/kube/kube_yaml_quantities.h"
#include "workloads/yaml_syntax_check.h"

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

TEST(YamlReaderDuration, AcceptsGoDurations) {
  EXPECT_DOUBLE_EQ(kYaml.duration(value("1h30m"), "v"), 5400.0);
  EXPECT_DOUBLE_EQ(kYaml.duration(value("300ms"), "v"), 0.3);
  EXPECT_DOUBLE_EQ(kYaml.duration(value("2h45m30.5s"), "v"), 2 * 3600 + 45 * 60 + 30.5);
  EXPECT_DOUBLE_EQ(kYaml.duration(value("1d12h"), "v"), 129600.0);
  EXPECT_DOUBLE_EQ(kYaml.duration(value("1m30s"), "v", 90.0), 90.0);
  EXPECT_DOUBLE_EQ(kYaml.duration(value("1500us"), "v"), 0.0015);
}

// The expected-text every duration error starts with, for a minimum of `min`.
std::string duration_expected(const std::string& min) {
  return "expected a duration of at least " + min +
         "s (seconds, or a Go duration such as 90s, 1h30m, 300ms, 1.5d), found ";
}

TEST(YamlReaderDuration, MinimumIsInclusive) {
  EXPECT_DOUBLE_EQ(kYaml.duration(value("1s"), "v", 1.0), 1.0);
  EXPECT_EQ(error_of([] { kYaml.duration(value("0.5s"), "v", 1.0); }),
            "t.yaml:1:4: v: " + duration_expected("1") + "'0.5s'");
  EXPECT_EQ(error_of([] { kYaml.duration(value("500ms"), "v", 1.0); }),
            "t.yaml:1:4: v: " + duration_expected("1") + "'500ms'");
  // The minimum applies after the unit: 1m is 60 seconds.
  EXPECT_DOUBLE_EQ(kYaml.duration(value("1m"), "v", 60.0), 60.0);
}

TEST(YamlReaderDuration, RejectsWhatIsNotADurationWithTheReason) {
  const std::string start = "t.yaml:1:4: pod.duration: " + duration_expected("0.001");
  const std::string not_duration =
      " is not a duration (expected a number and a unit, e.g. 1h30m, "
      "90s, 300ms)";
  const std::pair<std::string, std::string> cases[] = {
      {"90min", "'90min': unknown unit 'min' in duration '90min' (did you mean 'm'?)"},
      {"2hr", "'2hr': unknown unit 'hr' in duration '2hr' (did you mean 'h'?)"},
      {"2H", "'2H': unknown unit 'H' in duration '2H' (did you mean 'h'?)"},
      {"3days", "'3days': unknown unit 'days' in duration '3days' (did you mean 'd'?)"},
      {"1h30",
       "'1h30': unknown unit '' in duration '1h30' (missing unit after 30: ns, us, ms, s, "
       "m, h or d)"},
      {"5 m", "'5 m': unknown unit ' m' in duration '5 m' (units: ns, us, ms, s, m, h, d)"},
      {"h", "'h': 'h'" + not_duration},
      {"abc", "'abc': 'abc'" + not_duration},
      {"nan", "'nan': 'nan'" + not_duration},
      {"-5s", "'-5s'"},
      {"-1h30m", "'-1h30m': '-1h30m' is negative"},
      {"1e400", "'1e400': unknown unit 'e' in duration '1e400' (units: ns, us, ms, s, m, h, d)"},
  };
  for (const auto& [bad, found] : cases) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(error_of([&] { kYaml.duration(value(bad), "pod.duration", 0.001); }), start + found);
  }
  EXPECT_EQ(error_of([] { kYaml.duration(value("[1, 2]"), "d", 0.001); }),
            "t.yaml:1:4: d: " + duration_expected("0.001") + "a list");
  EXPECT_EQ(error_of([] { kYaml.duration(value("{s: 1}"), "d", 0.001); }),
            "t.yaml:1:4: d: " + duration_expected("0.001") + "a mapping");
}

TEST(YamlReaderDuration, NullIsNothing) {
  EXPECT_EQ(error_of([] { kYaml.duration(value("~"), "pod.duration"); }),
            "t.yaml:1:4: pod.duration: " + duration_expected("0") + "nothing");
}

TEST(YamlReaderDuration, BeyondTheHorizonIsRefused) {
  for (const std::string bad : {"1e308h", "1000000000000h", "99999999999999d"}) {
    SCOPED_TRACE(bad);
    EXPECT_NE(error_of([&] { kYaml.duration(value(bad), "v"); }).find("the simulation horizon"),
              std::string::npos);
  }
}

// ---- sizes in MiB --------------------------------------------------------------------------

TEST(YamlReaderMebibytes, AcceptsUnitsAndPlainIntegers) {
  EXPECT_EQ(kube_mebibytes(kYaml, value("512Mi"), "v"), 512);
  EXPECT_EQ(kube_mebibytes(kYaml, value("16Gi"), "v"), 16384);
  EXPECT_EQ(kube_mebibytes(kYaml, value("1Ti"), "v"), 1048576);
  EXPECT_EQ(kube_mebibytes(kYaml, value("0.5Gi"), "v"), 512);
  EXPECT_EQ(kube_mebibytes(kYaml, value("2048"), "v"), 2048);
  EXPECT_EQ(kube_mebibytes(kYaml, value("0"), "v"), 0);
  // A plain fraction is still MiB, rounded to the nearest as before.
  EXPECT_EQ(kube_mebibytes(kYaml, value("1.5"), "v"), 2);
}

TEST(YamlReaderMebibytes, SuffixedValuesAreKubernetesQuantitiesOfBytes) {
  // 10G = 10^10 / 2^20 = 9536.74 MiB, rounded up as Kubernetes rounds.
  EXPECT_EQ(kube_mebibytes(kYaml, value("10G"), "v"), 9537);
  EXPECT_EQ(kube_mebibytes(kYaml, value("10e9"), "v"), 9537);
  EXPECT_EQ(kube_mebibytes(kYaml, value("1Pi"), "v"), int64_t{1} << 30);
  EXPECT_EQ(kube_mebibytes(kYaml, value("1048576k"), "v"), 1000);  // 1.048576e9 / 2^20
  EXPECT_EQ(kube_mebibytes(kYaml, value("3M"), "v"), 3);           // 3e6 / 2^20 = 2.86
  EXPECT_EQ(kube_mebibytes(kYaml, value("1Ki"), "v"), 1);          // a KiB rounds up to 1 MiB
  EXPECT_EQ(kube_mebibytes(kYaml, value("10240Mi"), "v"), 10240);
}

std::string mib_expected() {
  return "expected a size in MiB (an integer, or a Kubernetes quantity of bytes such as 512Mi, "
         "16Gi, 10G)";
}

TEST(YamlReaderMebibytes, RejectsBadUnitsWithDidYouMean) {
  const std::string start =
      "t.yaml:1:4: gpu_memory_mib: expected a memory quantity in bytes (e.g. "
      "512Mi, 16Gi, 10G, 10e9, or a number of bytes), found ";
  const std::pair<std::string, std::string> cases[] = {
      {"16GB", "'16GB': unknown unit 'GB' in '16GB' (did you mean 'Gi' (2^30) or 'G' (10^9)?)"},
      {"16gi", "'16gi': unknown unit 'gi' in '16gi' (did you mean 'Gi' (2^30)?)"},
      {"512MiB", "'512MiB': unknown unit 'MiB' in '512MiB' (did you mean 'Mi' (2^20)?)"},
      {"512m",
       "'512m': '512m' is thousandths of a byte ('m' is milli; did you mean 'Mi' (2^20) "
       "or 'M' (10^6)?)"},
      {"-1Gi", "'-1Gi': '-1Gi' is negative"},
      {"Gi", "'Gi': 'Gi' has no digits"},
      {"lots", "'lots': 'lots' has no digits"},
      {"2Ei", "'2Ei': '2Ei' is more than the limit of 1000000000000 MiB"},
  };
  for (const auto& [bad, found] : cases) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(error_of([&] { kube_mebibytes(kYaml, value(bad), "gpu_memory_mib"); }),
              start + found);
  }
  for (const std::string bad : {"-1", "1.2.3", "2000000000000"}) {
    SCOPED_TRACE(bad);
    EXPECT_NE(error_of([&] { kube_mebibytes(kYaml, value(bad), "gpu_memory_mib"); }), "<no error>");
  }
  EXPECT_EQ(error_of([] { kube_mebibytes(kYaml, value("-1"), "m"); }),
            "t.yaml:1:4: m: " + mib_expected() + ", found '-1'");
  EXPECT_EQ(error_of([] { kube_mebibytes(kYaml, value("{size: 1}"), "m"); }),
            "t.yaml:1:4: m: " + mib_expected() + ", found a mapping");
}

TEST(YamlReaderMemoryBytes, ABareNumberIsBytes) {
  EXPECT_EQ(kube_memory_bytes_as_mib(kYaml, value("1073741824"), "memory"), 1024);
  EXPECT_EQ(kube_memory_bytes_as_mib(kYaml, value("1048577"), "memory"), 2);  // rounded up
  EXPECT_EQ(kube_memory_bytes_as_mib(kYaml, value("10Gi"), "memory"), 10240);
  EXPECT_EQ(kube_memory_bytes_as_mib(kYaml, value("10G"), "memory"), 9537);
  EXPECT_EQ(kube_memory_bytes_as_mib(kYaml, value("0"), "memory"), 0);
  EXPECT_EQ(error_of([] { kube_memory_bytes_as_mib(kYaml, value("10gb"), "memory"); }),
            "t.yaml:1:4: memory: expected a memory quantity in bytes (e.g. 512Mi, 16Gi, 10G, "
            "10e9, or a number of bytes), found '10gb': unknown unit 'gb' in '10gb' (did you "
            "mean 'Gi' (2^30) or 'G' (10^9)?)");
}

TEST(YamlReaderCpu, QuantityOfCores) {
  EXPECT_EQ(kube_cpu_milli(kYaml, value("4"), "cpu"), 4000);
  EXPECT_EQ(kube_cpu_milli(kYaml, value("128"), "cpu"), 128000);
  EXPECT_EQ(kube_cpu_milli(kYaml, value("4000m"), "cpu"), 4000);
  EXPECT_EQ(kube_cpu_milli(kYaml, value("500m"), "cpu"), 500);
  EXPECT_EQ(kube_cpu_milli(kYaml, value("0.5"), "cpu"), 500);
  EXPECT_EQ(kube_cpu_milli(kYaml, value("'2.25'"), "cpu"), 2250);
  const std::string start =
      "t.yaml:1:4: pod.cpu: expected a CPU quantity in cores (e.g. 4, 0.5, "
      "500m), found ";
  EXPECT_EQ(error_of([] { kube_cpu_milli(kYaml, value("2G"), "pod.cpu"); }),
            start + "'2G': '2G' is more than the limit of 1099511627 cores");
  EXPECT_EQ(error_of([] { kube_cpu_milli(kYaml, value("4cores"), "pod.cpu"); }),
            start +
                "'4cores': unknown unit 'cores' in '4cores' (units: Ki Mi Gi Ti Pi Ei, n u m "
                "k M G T P E, or an exponent such as e9)");
  EXPECT_EQ(error_of([] { kube_cpu_milli(kYaml, value("-1"), "pod.cpu"); }),
            start + "'-1': '-1' is negative");
  EXPECT_EQ(error_of([] { kube_cpu_milli(kYaml, value("[1]"), "pod.cpu"); }), start + "a list");
}

TEST(YamlReaderCpu, OptionalVariantsNameTheKey) {
  const YAML::Node root = YAML::Load("pod:\n  cpu: 2\n  memory: 3x\n");
  EXPECT_EQ(kube_opt_cpu_milli(kYaml, root["pod"], "pod", "cpu"), 2000);
  EXPECT_FALSE(kube_opt_cpu_milli(kYaml, root["pod"], "pod", "cores").has_value());
  EXPECT_FALSE(kube_opt_memory_bytes_as_mib(kYaml, root["pod"], "pod", "mem").has_value());
  EXPECT_EQ(error_of([&] { kube_opt_memory_bytes_as_mib(kYaml, root["pod"], "pod", "memory"); }),
            "t.yaml:3:11: pod.memory: expected a memory quantity in bytes (e.g. 512Mi, 16Gi, 10G, "
            "10e9, or a number of bytes), found '3x': unknown unit 'x' in '3x' (units: Ki Mi Gi "
            "Ti Pi Ei, n u m k M G T P E, or an exponent such as e9)");
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
  EXPECT_FALSE(kube_opt_mebibytes(kYaml, engine, "engine", "queue").has_value());
  EXPECT_EQ(kYaml.opt_duration(engine, "engine", "until"), 7200.0);
  EXPECT_EQ(error_of([&] { kYaml.opt_duration(engine, "engine", "sample_interval"); }),
            "t.yaml:3:20: engine.sample_interval: " + duration_expected("0") +
                "'5x': unknown unit 'x' in duration '5x' (units: ns, us, ms, s, m, h, d)");
}

// ---- locations -----------------------------------------------------------------------------

TEST(YamlReaderLocation, LineAndColumnAreOneBased) {
  const YAML::Node root = YAML::Load("a: 1\nb:\n  c: 5x\n  d: [1, 2, oops]\n");
  EXPECT_EQ(error_of([&] { kYaml.duration(root["b"]["c"], "b.c"); }),
            "t.yaml:3:6: b.c: " + duration_expected("0") +
                "'5x': unknown unit 'x' in duration '5x' (units: ns, us, ms, s, m, h, d)");
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

class YamlFile : public ::testing::Test {
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
            path +
                ":1:4: a: YAML anchors ('&a') are not supported; write the value out where it "
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
            two +
                ":2:1: top level: a second YAML document ('---' after the first); a file holds "
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
