// The CEL subset of DRA selectors: each construct's value on a hand-built device, CEL's
// error-absorbing && and ||, and each unsupported construct refused at its own column.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>

#include "sim/modes/dra/cel_expression.h"
#include "tests/support/temp_files.h"
#include "workloads/input_error.h"

namespace slicelab {
namespace {

class CelTestDevice : public CelDevice {
 public:
  std::string driver_name = "gpu.nvidia.com";
  std::map<std::string, CelValue> attrs;      // qualified or driver-local name
  std::map<std::string, int64_t> capacities;  // milli-units
  bool multi = false;
  std::string_view driver() const override { return driver_name; }
  CelValue attribute(std::string_view domain, std::string_view name) const override {
    return find(attrs, domain, name);
  }
  CelValue capacity(std::string_view domain, std::string_view name) const override {
    std::map<std::string, CelValue> q;
    for (const auto& [k, v] : capacities) q[k] = CelValue::quantity_milli(v);
    return find(q, domain, name);
  }
  bool allow_multiple_allocations() const override { return multi; }

 private:
  CelValue find(const std::map<std::string, CelValue>& m, std::string_view domain,
                std::string_view name) const {
    if (domain == driver_name)
      if (const auto it = m.find(std::string(name)); it != m.end()) return it->second;
    if (const auto it = m.find(std::string(domain) + "/" + std::string(name)); it != m.end())
      return it->second;
    return {};
  }
};

CelTestDevice h100() {
  CelTestDevice d;
  d.attrs["productName"] = CelValue::string("NVIDIA H100 80GB HBM3");
  d.attrs["architecture"] = CelValue::string("Hopper");
  d.attrs["index"] = CelValue::integer(3);
  d.attrs["cudaComputeCapability"] = CelValue::version({9, 0, 0});
  d.attrs["resource.kubernetes.io/pcieRoot"] = CelValue::string("pci0000:00");
  d.capacities["memory"] = int64_t{80} * 1024 * 1024 * 1024 * 1000;
  d.capacities["multiprocessors"] = 132000;
  return d;
}

std::string locate_at(size_t offset) {
  return "f.yaml:1:" + std::to_string(offset + 1);
}

CelValue run(const std::string& text, const CelDevice& device) {
  return CelExpression::compile(text, locate_at).evaluate(device);
}
bool is_true(const CelValue& v) {
  return v.type == CelType::kBool && v.b;
}
bool is_false(const CelValue& v) {
  return v.type == CelType::kBool && !v.b;
}

TEST(DraCel, DriverAndAttributes) {
  const CelTestDevice d = h100();
  EXPECT_TRUE(is_true(run(R"(device.driver == "gpu.nvidia.com")", d)));
  EXPECT_TRUE(is_false(run(R"(device.driver != "gpu.nvidia.com")", d)));
  EXPECT_TRUE(is_true(
      run(R"(device.attributes["gpu.nvidia.com"].productName == "NVIDIA H100 80GB HBM3")", d)));
  EXPECT_TRUE(
      is_true(run(R"(device.attributes['gpu.nvidia.com']["architecture"] == 'Hopper')", d)));
  EXPECT_TRUE(
      is_true(run(R"(device.attributes["resource.kubernetes.io"].pcieRoot == "pci0000:00")", d)));
  EXPECT_TRUE(is_true(run(R"(device.attributes["gpu.nvidia.com"].index >= 3)", d)));
  EXPECT_TRUE(is_false(run(R"(device.attributes["gpu.nvidia.com"].index < 3)", d)));
  EXPECT_TRUE(is_true(run(R"(device.attributes["gpu.nvidia.com"].index in [1, 3, 5])", d)));
  EXPECT_TRUE(
      is_false(run(R"(device.attributes["gpu.nvidia.com"].architecture in ["Ampere"])", d)));
  EXPECT_TRUE(is_true(run(R"(!device.allowMultipleAllocations)", d)));
}

TEST(DraCel, QuantitiesAndVersions) {
  const CelTestDevice d = h100();
  const std::string mem = R"(device.capacity["gpu.nvidia.com"].memory)";
  EXPECT_TRUE(is_true(run(mem + R"(.compareTo(quantity("40Gi")) >= 0)", d)));
  EXPECT_TRUE(is_true(run(mem + R"(.compareTo(quantity("80Gi")) == 0)", d)));
  // 80Gi is 85.9e9 bytes: more than 80G (80e9), less than 90G.
  EXPECT_TRUE(is_true(run(mem + R"(.isGreaterThan(quantity("80G")))", d)));
  EXPECT_TRUE(is_true(run(mem + R"(.isLessThan(quantity("90G")))", d)));
  EXPECT_TRUE(is_false(run(mem + R"(.isLessThan(quantity("81920Mi")))", d)));
  EXPECT_TRUE(is_true(run(
      R"(device.capacity["gpu.nvidia.com"].multiprocessors.isGreaterThan(quantity("50")))", d)));
  EXPECT_TRUE(is_true(run(
      R"(device.attributes["gpu.nvidia.com"].cudaComputeCapability.isGreaterThan(semver("8.9.0")))",
      d)));
  EXPECT_TRUE(is_true(run(
      R"(device.attributes["gpu.nvidia.com"].cudaComputeCapability.compareTo(semver("9.0.0")) == 0)",
      d)));
}

TEST(DraCel, StringFunctions) {
  const CelTestDevice d = h100();
  const std::string name = R"(device.attributes["gpu.nvidia.com"].productName)";
  EXPECT_TRUE(is_true(run(name + R"(.startsWith("NVIDIA H100"))", d)));
  EXPECT_TRUE(is_false(run(name + R"(.endsWith("PCIe"))", d)));
  EXPECT_TRUE(is_true(run(name + R"(.contains("80GB"))", d)));
  EXPECT_TRUE(is_true(run(name + R"x(.matches("H(100|200)"))x", d)));
  EXPECT_TRUE(is_false(run(name + R"(.matches("^H100"))", d)));
}

// CEL raises "no such key" for a missing attribute, and && / || absorb it when the other
// side decides: the structured allocator sees an error only when nothing decides.
TEST(DraCel, MissingAttributeFollowsCelErrorRules) {
  CelTestDevice other;
  other.driver_name = "dra.example.com";
  const std::string guarded =
      R"(device.driver == "gpu.nvidia.com" && device.attributes["gpu.nvidia.com"].productName == "x")";
  EXPECT_TRUE(is_false(run(guarded, other)));
  const std::string reversed =
      R"(device.attributes["gpu.nvidia.com"].productName == "x" && device.driver == "gpu.nvidia.com")";
  EXPECT_TRUE(is_false(run(reversed, other)));
  const CelValue bare = run(R"(device.attributes["gpu.nvidia.com"].productName == "x")", other);
  EXPECT_EQ(bare.type, CelType::kError);
  EXPECT_EQ(bare.fault, CelFault::kNoSuchKey);
  EXPECT_TRUE(is_true(
      run(R"(device.driver == "dra.example.com" || device.attributes["x"].y == 1)", other)));
  // Comparing an int attribute with a string: no matching overload for '<'.
  const CelValue mixed = run(R"(device.attributes["gpu.nvidia.com"].index < "3")", h100());
  EXPECT_EQ(mixed.fault, CelFault::kNoSuchOverload);
  // Equality across types is false, as in CEL's heterogeneous equality.
  EXPECT_TRUE(is_false(run(R"(device.attributes["gpu.nvidia.com"].index == "3")", h100())));
}

TEST(DraCel, PrecedenceAndParentheses) {
  const CelTestDevice d = h100();
  EXPECT_TRUE(is_true(run("true || false && false", d)));
  EXPECT_TRUE(is_false(run("(true || false) && false", d)));
  EXPECT_TRUE(is_true(run("!(1 > 2) && -1 < 0", d)));
}

// "f.yaml:1:COL: ..." with COL the construct's own column (locate_at adds one to the offset).
std::string refusal(const std::string& text) {
  try {
    (void)CelExpression::compile(text, locate_at);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

std::string refusal_with(CelRegexCache& cache, const std::string& text) {
  try {
    (void)CelExpression::compile(text, locate_at, &cache);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(DraCel, UnsupportedConstructsNamedAtTheirColumn) {
  EXPECT_EQ(refusal(R"(has(device.attributes["x"].y))"),
            "f.yaml:1:1: unsupported CEL construct 'has()': function (slicelab's CEL subset: "
            "docs/dra.md#cel)");
  EXPECT_THAT(refusal(R"(device.driver == "a" ? true : false)"),
              ::testing::StartsWith("f.yaml:1:22: unsupported CEL construct '?:': th"));
  EXPECT_THAT(refusal("1 + 2 == 3"),
              ::testing::StartsWith("f.yaml:1:3: unsupported CEL construct '+'"));
  EXPECT_THAT(refusal(R"(device.capacity["d"].memory >= quantity("1Gi"))"),
              ::testing::StartsWith("f.yaml:1:29: unsupported CEL construct '>='"));
  EXPECT_THAT(refusal(R"(device.attributes["d"].x.size() > 1)"),
              ::testing::StartsWith("f.yaml:1:25: unsupported CEL construct '.size()'"));
  EXPECT_THAT(refusal(R"(device.name == "gpu-0")"),
              ::testing::StartsWith("f.yaml:1:8: unsupported CEL construct 'device.name'"));
  EXPECT_THAT(refusal(R"(cel.bind(x, 1, x == 1))"),
              ::testing::StartsWith("f.yaml:1:1: unsupported CEL construct 'cel'"));
  EXPECT_THAT(refusal(R"(device.attributes["d"].?x.orValue(1) == 1)"),
              ::testing::StartsWith("f.yaml:1:23: unsupported CEL construct '.?'"));
  EXPECT_THAT(refusal("1.5 > 1"),
              ::testing::StartsWith("f.yaml:1:1: unsupported CEL construct '1.5'"));
  EXPECT_EQ(refusal(R"(device.driver == "a" &&)"),
            "f.yaml:1:24: CEL syntax error: unexpected end of expression");
  EXPECT_EQ(refusal(R"(device.driver)"),
            "f.yaml:1:1: the selector's expression must evaluate to a bool");
  EXPECT_THAT(refusal(R"(device.driver.matches("("))"),
              ::testing::StartsWith("f.yaml:1:23: matches(): invalid regular expression: "));
}

TEST(DraCel, DeepNestingRefusedNotACrash) {
  EXPECT_EQ(refusal(std::string(5000, '(') + "true" + std::string(5000, ')')),
            "f.yaml:1:101: CEL expression nested deeper than 100 levels");
  EXPECT_EQ(refusal(std::string(5000, '!') + "true"),
            "f.yaml:1:101: CEL expression nested deeper than 100 levels");
  EXPECT_TRUE(is_true(run(std::string(40, '(') + "true" + std::string(40, ')'), h100())));
}

// matches() runs on RE2, whose matching takes time linear in the input whatever the pattern:
// (a+)+$ on 63 'a's and a '!' did not finish in 60 s on the backtracking std::regex it replaced
// (24 characters: 2.7 s). bench/dra_cel.cc (BM_NestedQuantifier) has the real figure; the bound
// here only has to fail on a backtracking engine.
TEST(DraCelRegex, NestedQuantifierMatchesInLinearTime) {
  static const std::string kNoMatch = std::string(63, 'a') + "!";
  static const std::string kMatch(64, 'a');
  CelTestDevice d = h100();
  const CelExpression e = CelExpression::compile(
      R"(device.attributes["gpu.nvidia.com"].serial.matches("^(a+)+$"))", locate_at);
  for (const std::string* text : {&kNoMatch, &kMatch}) {
    d.attrs["serial"] = CelValue::string(*text);
    const auto start = std::chrono::steady_clock::now();
    const CelValue v = e.evaluate(d);
    const auto spent = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(is_true(v), text == &kMatch);
    EXPECT_LT(spent, std::chrono::milliseconds(50));
  }
}

// CEL's matches() is cel-go's, which is RE2 syntax: what RE2 takes (inline flags, Unicode
// classes) matches as in Kubernetes, and what it refuses (backreferences, lookaround) is refused
// when the file is loaded, as Kubernetes' ValidateRegexLiterals refuses it when the object is
// created.
TEST(DraCelRegex, Re2SyntaxAsKubernetesHasIt) {
  const CelTestDevice d = h100();
  const std::string name = R"(device.attributes["gpu.nvidia.com"].productName)";
  EXPECT_TRUE(is_true(run(name + R"(.matches("(?i)nvidia h100"))", d)));
  EXPECT_TRUE(is_true(run(name + R"(.matches("^[[:upper:]]+ H\\d{3} "))", d)));
  EXPECT_TRUE(is_false(run(name + R"(.matches("\\p{Greek}"))", d)));
  EXPECT_TRUE(is_false(run(name + R"(.matches("^A100"))", d)));
  EXPECT_EQ(refusal(name + R"(.matches("(a)\\1"))"),
            "f.yaml:1:57: matches(): invalid regular expression: invalid escape sequence: \\1");
  EXPECT_EQ(refusal(name + R"x(.matches("H(?=100)"))x"),
            "f.yaml:1:57: matches(): invalid regular expression: invalid perl operator: (?=");
  EXPECT_EQ(refusal(name + R"(.matches("a{1001}"))"),
            "f.yaml:1:57: matches(): invalid regular expression: invalid repetition size: "
            "{1001}");
}

// The bounds that keep one match short: the pattern's length and its compiled program.
TEST(DraCelRegex, PatternAndProgramBounded) {
  const std::string name = R"(device.attributes["gpu.nvidia.com"].productName)";
  EXPECT_EQ(refusal(name + ".matches(\"" + std::string(257, 'a') + "\")"),
            "f.yaml:1:57: matches(): pattern longer than 256 bytes");
  EXPECT_THAT(refusal(name + R"(.matches("\\pL{1000}"))"),
              ::testing::StartsWith("f.yaml:1:57: matches(): the pattern compiles to"));
  EXPECT_THAT(
      refusal(name + R"(.matches(".{0,250}x"))"),
      ::testing::MatchesRegex("f\\.yaml:1:57: matches\\(\\): the pattern compiles to [0-9]+ "
                              "RE2 instructions, more than slicelab's bound of 1000 .*"));
  EXPECT_TRUE(is_false(run(name + R"(.matches("^.{0,100}x$"))", h100())));
  // A string longer than the API allows an attribute is a runtime error, not a match.
  static const std::string kLong(65, 'a');
  CelTestDevice d = h100();
  d.attrs["serial"] = CelValue::string(kLong);
  const CelValue v = run(R"(device.attributes["gpu.nvidia.com"].serial.matches("a"))", d);
  EXPECT_EQ(v.type, CelType::kError);
  EXPECT_EQ(v.fault, CelFault::kRegexTooLong);
  // At most 128 distinct patterns: each keeps its own automaton cache.
  CelRegexCache cache;
  for (int i = 0; i < 128; ++i)
    (void)CelExpression::compile("device.driver.matches(\"^" + std::to_string(i) + "\")", locate_at,
                                 &cache);
  EXPECT_EQ(cache.size(), 128U);
  EXPECT_EQ(refusal_with(cache, R"(device.driver.matches("^again"))"),
            "f.yaml:1:23: matches(): more than 128 distinct patterns among the selectors "
            "(docs/dra.md#cel)");
  EXPECT_EQ(refusal_with(cache, R"(device.driver.matches("^7"))"), "accepted");  // compiled
}

// A pattern that several selectors use is compiled once.
TEST(DraCelRegex, EachDistinctPatternCompiledOnce) {
  CelRegexCache cache;
  for (const char* e :
       {R"(device.driver.matches("^gpu\\."))", R"(device.driver.matches("^gpu\\."))",
        R"(!device.driver.matches("^gpu\\.") || device.driver.matches("nvidia"))"})
    (void)CelExpression::compile(e, locate_at, &cache);
  EXPECT_EQ(cache.size(), 2U);
}

}  // namespace
}  // namespace slicelab
