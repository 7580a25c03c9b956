#include "workloads/bounded_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// --- taps: root members read as string arrays without a node per string ---

// The tapped parse with each taken array put back under its key.
json tapped_document(std::string_view text, const JsonLimits& limits = {}) {
  JsonStringArrayTaps taps{{"NodeNames", "nodeNames"}, {}};
  json doc = parse_bounded_json(text, limits, taps);
  for (size_t i = 0; i < taps.keys.size(); ++i)
    if (taps.arrays[i]) {
      EXPECT_FALSE(doc.contains(taps.keys[i])) << "a key both tapped and in the document";
      doc[taps.keys[i]] = *taps.arrays[i];
    }
  return doc;
}

// Where and how a parse fails: kind, offset and message, or "ok".
std::string outcome(std::string_view text, const JsonLimits& limits, bool tapped) {
  try {
    if (tapped) {
      (void)tapped_document(text, limits);
    } else {
      (void)parse_bounded_json(text, limits);
    }
  } catch (const JsonLimitError& e) {
    return std::to_string(static_cast<int>(e.failure())) + "@" + std::to_string(e.offset()) + ": " +
           e.what();
  }
  return "ok";
}

const std::vector<std::string> kTapBodies = {
    R"({"Pod":{"a":1},"NodeNames":["n1","a node name longer than fifteen","n3"]})",
    R"({"NodeNames":[]})",
    R"({"nodeNames":["x"],"NodeNames":["y"]})",
    R"({"NodeNames":["x"],"NodeNames":"not an array"})",
    R"({"NodeNames":"first","NodeNames":["then an array"]})",
    R"({"NodeNames":["a","b",1,"c"]})",             // a non-string: back into the document
    R"({"NodeNames":["a",["nested"],{"k":"v"}]})",  // containers inside
    R"({"NodeNames":["a",null]})",
    R"({"NodeNames":["a"],"NodeNames":["b",2]})",
    R"({"NodeNames":["a",2],"NodeNames":["b"]})",
    R"({"Pod":{"NodeNames":["inner"]},"Nodes":{"items":[{"NodeNames":["x"]}]}})",  // not root
    R"([{"NodeNames":["x"]}])",                                                    // root array
    R"({"NodeNames":null})",
    R"({"NodeNames":{"a":"b"}})",
    // The in-place scan's cases: whitespace anywhere JSON allows it, other members' values of
    // every kind (strings with escaped quotes and brackets), escapes and UTF-8 in names (the
    // full parse decodes them), an empty root, and text that is not JSON past the scan's reach.
    " \t\r\n{ \"Pod\" : { \"a\" : [ 1 , 2 ] } ,\n \"NodeNames\" : [ \"x\" ,\"y\" ] } \n",
    R"({"a":-0.5e3,"b":true,"c":null,"d":"s\"}]","e":[{"f":"]"}],"NodeNames":["x"],"g":false})",
    R"({"NodeNames":["plain","a\"b","caf\u00e9","x\\y"]})",
    "{\"NodeNames\":[\"caf\xc3\xa9\",\"plain\"]}",
    R"({"NodeNames":["a","a","b","a"]})",  // duplicates stay
    R"({})",
    R"({ })",
    R"({"NodeNames":[ ]})",
    R"({"Pod":"NodeNames","NodeNames":["x"]})",
};

// Text the in-place scan starts on that is not JSON, or that only the full parse reads: every
// document and failure is the full parse's.
const std::vector<std::string> kNotJsonTapBodies = {
    R"({"NodeNames":["a"]} x)",
    R"({"NodeNames":["a"],})",
    R"({"NodeNames":["a",]})",
    R"({"NodeNames":["a" "b"]})",
    R"({"a":tru,"NodeNames":["x"]})",
    R"({"a":[1,2},"NodeNames":["x"]})",
    R"({"a":1 2,"NodeNames":["x"]})",
    R"({"a":"unterminated,"NodeNames":["x"]})",
    R"({"NodeNames":["a\u00"]})",
    "{\"NodeNames\":[\"bad\xff\"]}",
    "{\"NodeNames\":[\"tab\there\"]}",
    "\xef\xbb\xbf{\"NodeNames\":[\"x\"]}",  // a byte-order mark: nlohmann skips it
    R"({"NodeNames":["a"])",
    R"({"NodeNames")",
    R"({,"NodeNames":["a"]})",
    R"({"NodeNames":["a"]}})",
};

TEST(BoundedJson, TapsGiveTheSameDocument) {
  for (const std::string& text : kTapBodies)
    EXPECT_EQ(tapped_document(text), json::parse(text)) << text;
}

TEST(BoundedJson, TapsFailAsTheFullParseDoes) {
  for (const std::string& text : kNotJsonTapBodies) {
    const json plain = json::parse(text, nullptr, false);
    if (plain.is_discarded()) {
      EXPECT_NE(outcome(text, {}, true), "ok") << text;
    } else {
      EXPECT_EQ(tapped_document(text), plain) << text;
    }
    EXPECT_EQ(outcome(text, {}, true), outcome(text, {}, false)) << text;
  }
}

// Names read in place are the names as written, in order, duplicates kept; a name with an escape
// is decoded, its neighbours as they are.
TEST(BoundedJson, TappedNamesAreReadAsWritten) {
  JsonStringArrayTaps taps{{"NodeNames"}, {}};
  (void)parse_bounded_json(
      R"({"NodeNames":[ "n1","a node name longer than fifteen", "n1","q\"uote","caf\u00e9"]})", {},
      taps);
  ASSERT_TRUE(taps.arrays[0].has_value());
  EXPECT_EQ(*taps.arrays[0], (std::vector<std::string>{"n1", "a node name longer than fifteen",
                                                       "n1", "q\"uote", "caf\xc3\xa9"}));
}

TEST(BoundedJson, TapsTakeOnlyArraysOfStringsUnderRootMembers) {
  JsonStringArrayTaps taps{{"NodeNames", "nodeNames"}, {}};
  json doc = parse_bounded_json(R"({"nodeNames":["x","y"],"NodeNames":["a",1]})", {}, taps);
  ASSERT_TRUE(taps.arrays[1].has_value());
  EXPECT_EQ(*taps.arrays[1], (std::vector<std::string>{"x", "y"}));
  EXPECT_FALSE(taps.arrays[0].has_value());  // it held a number: in the document
  EXPECT_EQ(doc["NodeNames"], json::parse(R"(["a",1])"));
  EXPECT_FALSE(doc.contains("nodeNames"));
}

// Same failures, offsets and messages as the untapped parse: syntax, depth, and memory at every
// limit around the document's own estimate.
TEST(BoundedJson, TapsKeepEveryLimit) {
  std::vector<std::string> bodies = kTapBodies;
  bodies.insert(bodies.end(), kNotJsonTapBodies.begin(), kNotJsonTapBodies.end());
  bodies.push_back(R"({"NodeNames":["a","b")");         // truncated
  bodies.push_back(R"({"NodeNames":["a",[[[[]]]]]})");  // deep inside
  bodies.push_back(R"({"NodeNames":[[[["a"]]]],"x":[[[[[[1]]]]]]})");
  for (const std::string& text : bodies) {
    for (const size_t depth : {1, 2, 3, 4, 6, 64}) {
      JsonLimits limits;
      limits.max_depth = depth;
      EXPECT_EQ(outcome(text, limits, true), outcome(text, limits, false)) << text << " " << depth;
    }
    // A body that is not JSON: limits up to 40 bytes per byte of its text.
    const json parsed = json::parse(text, nullptr, false);
    const size_t full = parsed.is_discarded() ? 40 * text.size() : estimated_json_bytes(parsed);
    for (size_t bytes = 1; bytes <= full + 64; bytes += (bytes + 200 < full ? 37 : 1)) {
      JsonLimits limits;
      limits.max_document_bytes = bytes;
      EXPECT_EQ(outcome(text, limits, true), outcome(text, limits, false)) << text << " " << bytes;
    }
  }
}

TEST(BoundedJson, TapsChargeASharedBudgetAsTheDocumentWould) {
  const std::string text = R"({"Pod":{},"NodeNames":["n1","a node name longer than fifteen"]})";
  MemoryBudget budget(1 << 20);
  BudgetCharge plain(budget);
  JsonLimits limits;
  limits.charge = &plain;
  const json doc = parse_bounded_json(text, limits);
  BudgetCharge tapped(budget);
  limits.charge = &tapped;
  JsonStringArrayTaps taps{{"NodeNames"}, {}};
  (void)parse_bounded_json(text, limits, taps);
  EXPECT_EQ(tapped.bytes(), plain.bytes());
  EXPECT_EQ(plain.bytes(), estimated_json_bytes(doc));
}

// A budget that cannot take the whole document: the tapped parse fails as the full one does, and
// holds what the full one holds when it fails (what the in-place scan charged is given back before
// the full parse), at every budget around the document's size; none is left charged after.
TEST(BoundedJson, TapsChargeNothingTwiceWhenTheBudgetIsSpent) {
  const std::string text = R"({"Pod":{"a":[1,2]},"NodeNames":["n1","n2","a long node name here"]})";
  const size_t full = estimated_json_bytes(json::parse(text));
  for (size_t limit = full - 80; limit <= full + 1; ++limit) {
    MemoryBudget plain_budget(limit), tapped_budget(limit);
    std::string plain_outcome, tapped_outcome;
    size_t plain_bytes = 0, tapped_bytes = 0;
    {
      BudgetCharge charge(plain_budget);
      JsonLimits limits;
      limits.charge = &charge;
      plain_outcome = outcome(text, limits, false);
      plain_bytes = charge.bytes();
    }
    {
      BudgetCharge charge(tapped_budget);
      JsonLimits limits;
      limits.charge = &charge;
      tapped_outcome = outcome(text, limits, true);
      tapped_bytes = charge.bytes();
    }
    EXPECT_EQ(plain_budget.used(), 0U);
    EXPECT_EQ(tapped_budget.used(), 0U);
    EXPECT_EQ(tapped_outcome, plain_outcome) << limit;
    EXPECT_EQ(tapped_bytes, plain_bytes) << limit;
    EXPECT_EQ(plain_outcome == "ok", limit >= full) << limit;
  }
}

}  // namespace
}  // namespace slicelab
