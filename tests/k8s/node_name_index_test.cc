#include "backends/k8s/node_name_index.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace slicelab::k8s {
namespace {

std::vector<std::string_view> views(const std::vector<std::string>& names) {
  return {names.begin(), names.end()};
}

TEST(NodeNameIndex, FindsEveryNameAtItsPosition) {
  std::vector<std::string> names;
  for (int i = 0; i < 10000; ++i) names.push_back("node-" + std::to_string(i));
  NodeNameIndex index;
  index.assign(views(names));
  EXPECT_EQ(index.size(), 10000U);
  for (uint32_t i = 0; i < names.size(); ++i) {
    ASSERT_EQ(index.find(names[i]), i) << names[i];
  }
  // Prefixes and extensions of names are other names.
  EXPECT_FALSE(index.contains("node-"));
  EXPECT_FALSE(index.contains("node-10000"));
  EXPECT_FALSE(index.contains("node-1 "));
  EXPECT_FALSE(index.contains("Node-1"));
  EXPECT_FALSE(index.contains(""));
}

// Names are bytes: decoded JSON escapes (quotes, backslashes, NUL, UTF-8, bytes that are not
// UTF-8), the empty name and long names are found as given and only so.
TEST(NodeNameIndex, NamesAreComparedAsBytes) {
  const std::vector<std::string> names = {
      "a\"b",    "x\\y", std::string("nul\0x", 5), "caf\xc3\xa9",
      "bad\xff", "",     std::string(300, 'n'),    "a node name longer than fifteen"};
  NodeNameIndex index;
  index.assign(views(names));
  for (uint32_t i = 0; i < names.size(); ++i) EXPECT_EQ(index.find(names[i]), i) << i;
  EXPECT_FALSE(index.contains("nul"));  // stops at the NUL: another name
  EXPECT_FALSE(index.contains(std::string(299, 'n')));
  EXPECT_FALSE(index.contains("cafe"));
}

// A name given twice keeps its first id, as the map it replaces (emplace) did.
TEST(NodeNameIndex, ADuplicateKeepsItsFirstId) {
  const std::vector<std::string> names = {"a", "b", "a", "c", "b"};
  NodeNameIndex index;
  index.assign(views(names));
  EXPECT_EQ(index.find("a"), 0U);
  EXPECT_EQ(index.find("b"), 1U);
  EXPECT_EQ(index.find("c"), 3U);
}

// The index holds its own copies; a new assign() forgets the old names.
TEST(NodeNameIndex, OwnsItsNamesAndIsReassigned) {
  NodeNameIndex index;
  EXPECT_FALSE(index.contains("a"));  // empty
  {
    std::vector<std::string> names = {"first", "second"};
    index.assign(views(names));
    names[0] = "other";
  }
  EXPECT_EQ(index.find("first"), 0U);
  EXPECT_FALSE(index.contains("other"));
  const std::vector<std::string> next = {"second"};
  index.assign(views(next));
  EXPECT_EQ(index.size(), 1U);
  EXPECT_FALSE(index.contains("first"));
  EXPECT_EQ(index.find("second"), 0U);
  index.assign({});
  EXPECT_EQ(index.size(), 0U);
  EXPECT_FALSE(index.contains("second"));
}

}  // namespace
}  // namespace slicelab::k8s
