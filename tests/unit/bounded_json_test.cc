#include "workloads/bounded_json.h"

#include <gtest/gtest.h>

#include <string>

namespace slicelab {
namespace {

using nlohmann::json;

JsonFailure failure_of(std::string_view text, const JsonLimits& limits = {}) {
  try {
    (void)parse_bounded_json(text, limits);
  } catch (const JsonLimitError& e) {
    return e.failure();
  }
  ADD_FAILURE() << "parsed: " << text.substr(0, 80);
  return JsonFailure::kSyntax;
}

TEST(BoundedJson, ParsesAsNlohmannDoes) {
  for (const std::string text :
       {R"({"a":[1,-2,3.5,"x",true,null,{"b":{}}],"c":"a string longer than fifteen"})", R"([])",
        R"("s")", R"(12)", R"({"k":1,"k":2})", R"([[[[]]],{"":{"":[]}}])",
        R"({"metadata":{"name":"n","labels":{"nvidia.com/gpu.product":"A100"}}})"}) {
    EXPECT_EQ(parse_bounded_json(text), json::parse(text)) << text;
  }
}

TEST(BoundedJson, RefusesDeepNestingWhereItPassesTheLimit) {
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  try {
    (void)parse_bounded_json(deep);
    FAIL() << "a 100,000-level document parsed";
  } catch (const JsonLimitError& e) {
    EXPECT_EQ(e.failure(), JsonFailure::kTooDeep);
    EXPECT_EQ(e.offset(), 64u);  // the 65th '[' is the one refused
    EXPECT_NE(std::string(e.what()).find("64"), std::string::npos) << e.what();
  }
  // Exactly at the limit is fine; one more is not.
  JsonLimits three;
  three.max_depth = 3;
  EXPECT_NO_THROW((void)parse_bounded_json("[{\"a\":[]}]", three));
  EXPECT_EQ(failure_of("[{\"a\":[[]]}]", three), JsonFailure::kTooDeep);
  EXPECT_EQ(failure_of(R"({"Pod":)" + std::string(200, '[') + "1" + std::string(200, ']') + "}"),
            JsonFailure::kTooDeep);
}

TEST(BoundedJson, SyntaxErrorsSayWhere) {
  try {
    (void)parse_bounded_json(R"({"a": [1, 2,, 3]})");
    FAIL();
  } catch (const JsonLimitError& e) {
    EXPECT_EQ(e.failure(), JsonFailure::kSyntax);
    EXPECT_EQ(e.offset(), 12u);
  }
  EXPECT_EQ(failure_of(""), JsonFailure::kSyntax);
  EXPECT_EQ(failure_of("{} x"), JsonFailure::kSyntax);
  EXPECT_EQ(failure_of("[1,2"), JsonFailure::kSyntax);
}

TEST(BoundedJson, DocumentMemoryIsBounded) {
  std::string many = "[";
  for (int i = 0; i < 10'000; ++i) many += "{},";
  many += "{}]";
  // The densest real input fits the default factor...
  const json parsed = parse_bounded_json(many);
  EXPECT_LE(estimated_json_bytes(parsed), (many.size() + 1) * kDefaultMemoryFactor);
  // ...and an explicit ceiling stops the parse.
  JsonLimits small;
  small.max_document_bytes = 4096;
  EXPECT_EQ(failure_of(many, small), JsonFailure::kTooLarge);
}

TEST(BoundedJson, TheEstimateMatchesWhatTheParseCharged) {
  const std::string text =
      R"({"kind":"Pod","metadata":{"name":"a-pod-with-a-long-name","namespace":"ns"},)"
      R"("spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}})";
  const json parsed = parse_bounded_json(text);
  MemoryBudget budget(1 << 20);
  {
    BudgetCharge charge(budget);
    JsonLimits limits;
    limits.charge = &charge;
    (void)parse_bounded_json(text, limits);
    EXPECT_EQ(charge.bytes(), estimated_json_bytes(parsed));
    EXPECT_EQ(budget.used(), charge.bytes());
  }
  EXPECT_EQ(budget.used(), 0u);  // given back with the charge
}

TEST(BoundedJson, ASharedBudgetRefusesWhatWouldPassIt) {
  const std::string text = "[" + std::string(1000, '1').insert(0, "\"") + "\"]";
  MemoryBudget budget(600);
  BudgetCharge held(budget);
  ASSERT_TRUE(held.try_add(500));
  BudgetCharge charge(budget);
  JsonLimits limits;
  limits.charge = &charge;
  EXPECT_EQ(failure_of(text, limits), JsonFailure::kTooLarge);
  EXPECT_LE(budget.used(), budget.limit());
}

}  // namespace
}  // namespace slicelab
