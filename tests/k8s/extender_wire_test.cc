// The extender's wire types: Go field names both ways, and hostile bodies refused as WireError.
#include <gtest/gtest.h>

#include "backends/k8s/extender_wire.h"
#include "backends/k8s/gpu_assignment.h"
#include "workloads/bounded_json.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace slicelab::k8s {
namespace extender_wire_test {

using nlohmann::json;

TEST(ExtenderWire, ArgsWithNodeNamesUseGoFieldNames) {
  const ExtenderArgs a = parse_extender_args(
      R"({"Pod":{"metadata":{"name":"p"}},"Nodes":null,"NodeNames":["n1","n2"]})");
  ASSERT_TRUE(a.node_names.has_value());
  EXPECT_EQ(*a.node_names, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_FALSE(a.nodes.has_value());
  EXPECT_EQ(a.pod["metadata"]["name"], "p");
}

TEST(ExtenderWire, ArgsWithNodeList) {
  const ExtenderArgs a = parse_extender_args(
      R"({"Pod":{},"Nodes":{"kind":"NodeList","items":[{"metadata":{"name":"n1"}}]}})");
  ASSERT_TRUE(a.nodes.has_value());
  ASSERT_EQ(a.nodes->size(), 1U);
  EXPECT_EQ((*a.nodes)[0]["metadata"]["name"], "n1");
}

TEST(ExtenderWire, FilterResultKeysAreGoNames) {
  ExtenderFilterResult r;
  r.node_names = std::vector<std::string>{"n1"};
  r.failed_nodes["n2"] = "full";
  const json j = to_json(r);
  EXPECT_EQ(j["NodeNames"], json::array({"n1"}));
  EXPECT_TRUE(j["Nodes"].is_null());
  EXPECT_EQ(j["FailedNodes"]["n2"], "full");
  EXPECT_TRUE(j["FailedAndUnresolvableNodes"].is_object());
  EXPECT_EQ(j["Error"], "");
  const ExtenderFilterResult back = parse_filter_result(j.dump());
  EXPECT_EQ(back.failed_nodes.at("n2"), "full");
}

TEST(ExtenderWire, HostPriorityListAndBinding) {
  const json p = to_json(std::vector<HostPriority>{{"n1", 10}, {"n2", 3}});
  EXPECT_EQ(p.dump(), R"([{"Host":"n1","Score":10},{"Host":"n2","Score":3}])");
  const ExtenderBindingArgs b =
      parse_binding_args(R"({"PodName":"p","PodNamespace":"ns","PodUID":"u","Node":"n1"})");
  EXPECT_EQ(b.pod_name, "p");
  EXPECT_EQ(b.pod_namespace, "ns");
  EXPECT_EQ(b.pod_uid, "u");
  EXPECT_EQ(b.node, "n1");
  EXPECT_EQ(to_json(ExtenderBindingResult{"x"}).dump(), R"({"Error":"x"})");
}

TEST(ExtenderWire, HostileBodiesAreWireErrors) {
  const char* bad[] = {
      R"({"Pod":{},"NodeNames":["n1")",       // truncated
      R"([1,2])",                             // not an object
      R"({"Pod":"p","NodeNames":["n1"]})",    // Pod of the wrong type
      R"({"Pod":{},"NodeNames":"n1"})",       // NodeNames not a list
      R"({"Pod":{},"NodeNames":[1]})",        // a name not a string
      R"({"Pod":{}})",                        // no nodes at all
      R"({"Pod":{},"Nodes":{"items":[3]}})",  // a node not an object
      "",
  };
  for (const char* body : bad) EXPECT_THROW(parse_extender_args(body), WireError) << body;
  EXPECT_THROW(parse_binding_args(R"({"PodName":"p"})"), WireError);
  EXPECT_THROW(parse_binding_args(R"({"PodName":3,"Node":"n"})"), WireError);
  const std::string huge(kMaxExtenderBodyBytes + 1, ' ');
  EXPECT_THROW(parse_extender_args(huge), WireError);
}

// NodeNames is read without a json node per name: every spelling, duplicate and wrong type
// resolves as the document lookup did (the Go name first; a Go name present but null hides the
// lowerCamel one; the last of duplicate keys wins), with the same messages.
TEST(ExtenderWire, NodeNamesResolveAsTheDocumentLookupDid) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> read = {
      {R"({"Pod":{},"nodeNames":["a"]})", {"a"}},
      {R"({"Pod":{},"NodeNames":["a"],"nodeNames":["b"]})", {"a"}},
      {R"({"Pod":{},"nodeNames":["b"],"NodeNames":["a"]})", {"a"}},
      {R"({"Pod":{},"NodeNames":["a"],"NodeNames":["b"]})", {"b"}},
      {R"({"Pod":{},"NodeNames":[1],"NodeNames":["b"]})", {"b"}},
      {R"({"Pod":{},"nodeNames":"x","NodeNames":["a"]})", {"a"}},
      {R"({"Pod":{},"NodeNames":[]})", {}},
      {R"({"Pod":{},"NodeNames":["a\"b","caf\u00e9","x\\y"]})", {"a\"b", "caf\xc3\xa9", "x\\y"}},
  };
  for (const auto& [body, names] : read) {
    const ExtenderArgs a = parse_extender_args(body);
    ASSERT_TRUE(a.node_names.has_value()) << body;
    EXPECT_EQ(*a.node_names, names) << body;
  }
  const std::vector<std::pair<std::string, std::string>> refused = {
      {R"({"Pod":{},"NodeNames":["a",1]})", "ExtenderArgs: NodeNames holds a non-string"},
      {R"({"Pod":{},"NodeNames":["a"],"NodeNames":["b",null]})",
       "ExtenderArgs: NodeNames holds a non-string"},
      {R"({"Pod":{},"nodeNames":[["a"]]})", "ExtenderArgs: NodeNames holds a non-string"},
      {R"({"Pod":{},"NodeNames":"x"})", "ExtenderArgs: NodeNames is not an array"},
      {R"({"Pod":{},"NodeNames":["a"],"NodeNames":{}})", "ExtenderArgs: NodeNames is not an array"},
      {R"({"Pod":{},"NodeNames":null,"nodeNames":["b"]})",
       "ExtenderArgs: neither Nodes nor NodeNames is given"},
      {R"({"NodeNames":["a"]})", "ExtenderArgs: Pod is missing"},
      {R"({"Pod":{},"NodeNames":["a")", "ExtenderArgs: body is not valid JSON: "},
  };
  for (const auto& [body, message] : refused) {
    try {
      (void)parse_extender_args(body);
      ADD_FAILURE() << "parsed: " << body;
    } catch (const WireError& e) {
      EXPECT_EQ(std::string(e.what()).substr(0, message.size()), message) << body;
    }
  }
}

// The answers' text is what the document's dump was, byte for byte: plain names, names that
// need escapes, UTF-8, bytes that are not UTF-8 (replaced), empty and absent fields.
TEST(ExtenderWire, AnswerTextIsTheDocumentsDump) {
  const auto dump = [](const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
  };
  const std::vector<std::string> names = {
      "n1",          "",        "a node name longer than fifteen", "q\"uote",      "back\\slash",
      "new\nline",   "tab\t",   std::string("nul\0x", 5),          "\x01\x1f\x7f", "caf\xc3\xa9",
      "bad\xff\xfe", "\xe2\x82"};
  ExtenderFilterResult empty;
  EXPECT_EQ(answer_text(empty), dump(to_json(empty)));
  ExtenderFilterResult r;
  r.node_names = names;
  for (const std::string& n : names) r.failed_nodes[n] = "slicelab: rejected by " + n;
  r.failed_and_unresolvable_nodes["x"] = "y";
  r.error = "slicelab: \"bad\" \xff";
  EXPECT_EQ(answer_text(r), dump(to_json(r)));
  r.node_names = std::vector<std::string>{};
  EXPECT_EQ(answer_text(r), dump(to_json(r)));
  ExtenderFilterResult with_nodes;
  with_nodes.nodes = std::vector<json>{json::parse(R"({"metadata":{"name":"n1"},"kind":"Node"})"),
                                       json{{"metadata", {{"name", "bad\xff"}}}}};
  EXPECT_EQ(answer_text(with_nodes), dump(to_json(with_nodes)));
  std::vector<HostPriority> priorities;
  EXPECT_EQ(answer_text(priorities), "[]");
  int64_t score = -3;
  for (const std::string& n : names) priorities.push_back({n, score++});
  priorities.push_back({"big", std::numeric_limits<int64_t>::max()});
  priorities.push_back({"small", std::numeric_limits<int64_t>::min()});
  EXPECT_EQ(answer_text(priorities), dump(to_json(priorities)));
  EXPECT_EQ(answer_text(std::vector<HostPriority>{{"n1", 10}, {"n2", 0}}),
            R"([{"Host":"n1","Score":10},{"Host":"n2","Score":0}])");
}

// Nesting is refused while parsing, at level 65, whatever follows: 100,000 arrays inside the Pod
// (a 200 KB body) used to be copied and converted recursively until the stack ran out.
TEST(ExtenderWire, DeepBodiesAreRefusedWhileParsing) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  try {
    (void)parse_extender_args(R"({"NodeNames":["n1"],"Pod":{"spec":)" + deep + "}}");
    ADD_FAILURE() << "no error";
  } catch (const WireError& e) {
    // The Pod's spec opens level 3 at byte 34: level 65 is the 63rd '[', at byte 34 + 62.
    EXPECT_STREQ(e.what(), "ExtenderArgs: body nested deeper than 64 levels at byte 96");
  }
  EXPECT_THROW(parse_binding_args(R"({"PodName":"p","Node":"n","PodUID":)" + deep + "}"),
               WireError);
  EXPECT_THROW(parse_host_priorities(deep), WireError);
  // 64 levels in all are a valid body.
  const std::string at_limit =
      R"({"NodeNames":["n1"],"Pod":{"spec":)" + std::string(62, '[') + std::string(62, ']') + "}}";
  EXPECT_EQ(parse_extender_args(at_limit).pod["spec"].size(), 1U);
  const std::string past_limit =
      R"({"NodeNames":["n1"],"Pod":{"spec":)" + std::string(63, '[') + std::string(63, ']') + "}}";
  EXPECT_THROW(parse_extender_args(past_limit), WireError);
}

// Memory: a body whose parse would pass the shared budget (or its own limit) is WireOverBudget,
// which the server answers 503, and what it took is given back.
TEST(ExtenderWire, ABodyOverItsMemoryIsOverBudget) {
  std::string body = R"({"NodeNames":[)";
  for (int i = 0; i < 1000; ++i) body += (i ? ",\"n" : "\"n") + std::to_string(i) + "\"";
  body += R"(],"Pod":{}})";
  MemoryBudget budget(16 * 1024);
  {
    BudgetCharge charge(budget);
    WireLimits limits;
    limits.charge = &charge;
    EXPECT_THROW(parse_extender_args(body, limits), WireOverBudget);
  }
  EXPECT_EQ(budget.used(), 0U);
  WireLimits small;
  small.max_document_bytes = 4096;
  EXPECT_THROW(parse_extender_args(body, small), WireOverBudget);
  MemoryBudget enough(size_t{16} << 20);
  BudgetCharge charge(enough);
  WireLimits limits;
  limits.charge = &charge;
  EXPECT_EQ(parse_extender_args(body, limits).node_names->size(), 1000U);
  EXPECT_GT(enough.used(), 1000U * 32);  // held while the parsed body lives
}

TEST(ExtenderWire, GpuAssignmentRoundTrip) {
  GpuAssignment a{"n1", "fgd", "hami", {{0, "GPU-1", 8192, 30}, {3, "", 81920, 100}}};
  const std::string text = to_annotation(a);
  EXPECT_EQ(text,
            R"({"node":"n1","policy":"fgd","sharing":"hami","gpus":[{"index":0,"uuid":"GPU-1",)"
            R"("memoryMiB":8192,"cores":30},{"index":3,"memoryMiB":81920,"cores":100}]})");
  std::string error;
  const auto back = parse_gpu_assignment(text, error);
  ASSERT_TRUE(back.has_value()) << error;
  ASSERT_EQ(back->gpus.size(), 2U);
  EXPECT_EQ(back->gpus[1].index, 3);
  EXPECT_EQ(back->gpus[0].uuid, "GPU-1");
  EXPECT_FALSE(parse_gpu_assignment(R"({"gpus":[{"index":-1}]})", error).has_value());
  EXPECT_FALSE(parse_gpu_assignment("{", error).has_value());
  // The annotation is the pod owner's to write: a deep one is refused, not recursed into.
  EXPECT_FALSE(
      parse_gpu_assignment(std::string(100000, '[') + std::string(100000, ']'), error).has_value());
  EXPECT_NE(error.find("nesting deeper than 8 levels"), std::string::npos) << error;
}

}  // namespace extender_wire_test
}  // namespace slicelab::k8s
