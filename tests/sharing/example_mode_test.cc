// The worked example of docs/adding-a-sharing-mode.md: the toy mode of tests/sharing/example_mode/
// registered by one line, read from a policy's sharing block and run on a small scenario; and the
// doc's code equal to those files, so that the example cannot rot.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/modes/mode_registry.h"
#include "tests/sharing/example_mode/equal_slots.h"
#include "tests/support/sim_fixtures.h"
#include "workloads/input_error.h"

namespace slicelab {
namespace {

// clang-format off
const SharingModeEntry kEqualSlots = {"equal-slots", "N equal slots per GPU, each pod held to its slot's share of the GPU's time", read_equal_slots, nullptr, make_equal_slots_mode, nullptr};
// clang-format on

std::string read_text(const std::string& rel) {
  std::ifstream in(std::string(SLICELAB_SOURCE_DIR) + "/" + rel);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A policy's `sharing:` block read as the scenario loader reads it: the registry line's reader.
SharingConfig read_sharing_block(const std::string& text) {
  const YamlReader yaml("scenario.yaml");
  const YAML::Node node = YAML::Load(text);
  SharingConfig c;
  c.kind = std::string(kEqualSlots.name);
  kEqualSlots.read(yaml, node, "policies[0].sharing", c);
  return c;
}

TEST(ExampleSharingMode, ReadsItsSettingsAndMakesTheMode) {
  const SharingConfig c = read_sharing_block("{mode: equal-slots, slots: 3}");
  ASSERT_TRUE(c.mode_settings<EqualSlotsSettings>());
  EXPECT_EQ(c.mode_settings<EqualSlotsSettings>()->slots, 3);
  const auto mode = kEqualSlots.make(c);
  EXPECT_EQ(mode->kind(), "equal-slots");
  EXPECT_EQ(mode->capacity_units(), 3);
  EXPECT_EQ(mode->describe(), "equal-slots (3 per GPU)");
  // Without settings (a bare name): the defaults.
  EXPECT_EQ(kEqualSlots.make(SharingConfig{})->capacity_units(), 2);
}

TEST(ExampleSharingMode, RefusesKeysItDoesNotTake) {
  try {
    read_sharing_block("{mode: equal-slots, slot: 3}");
    FAIL() << "an unknown key was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("policies[0].sharing"), std::string::npos) << e.what();
  }
}

// Two slots on one GPU: two pods of 10 s at full demand run side by side at half speed (20 s);
// the third waits for a free slot and then still runs at its slot's half (20 s more).
TEST(ExampleSharingMode, RunsASmallScenario) {
  const SharingConfig c = read_sharing_block("{mode: equal-slots, slots: 2}");
  const auto mode = kEqualSlots.make(c);
  const std::vector<PodSpec> pods = {testing::pod("a", 0, 10).spec, testing::pod("b", 0, 10).spec,
                                     testing::pod("c", 0, 10).spec};
  const ClusterSpec cluster = testing::one_gpu();
  auto placement_config = placement_preset("first-fit");
  ASSERT_TRUE(placement_config.has_value());
  PlacementPolicy placement = build_placement(*placement_config);
  const RunInputs in{cluster, testing::catalog(), pods, *mode, testing::quiet_config(), 1};
  const RunResult r = run_simulation(in, placement);
  ASSERT_EQ(r.summary.completed, 3U);
  EXPECT_NEAR(r.pods[0].finish_s, 20.0, 1e-9);
  EXPECT_NEAR(r.pods[1].finish_s, 20.0, 1e-9);
  EXPECT_NEAR(r.pods[2].start_s, 20.0, 1e-9);
  EXPECT_NEAR(r.pods[2].finish_s, 40.0, 1e-9);
}

// The shipped registry does not hold the example: adding it is the one line above.
TEST(ExampleSharingMode, IsNotAShippedMode) {
  EXPECT_EQ(find_sharing_mode(kEqualSlots.name), nullptr);
}

// The code blocks of docs/adding-a-sharing-mode.md after "<!-- example: FILE -->" equal FILE,
// and its registry line is the one this test registers.
TEST(ExampleSharingMode, DocShowsExactlyTheTestedCode) {
  const std::string doc = read_text("docs/adding-a-sharing-mode.md");
  ASSERT_FALSE(doc.empty()) << "docs/adding-a-sharing-mode.md is missing";
  const std::vector<std::string> files = {"tests/sharing/example_mode/equal_slots.h",
                                          "tests/sharing/example_mode/equal_slots.cc"};
  for (const std::string& file : files) {
    const std::string marker = "<!-- example: " + file + " -->\n```cpp\n";
    const size_t at = doc.find(marker);
    ASSERT_NE(at, std::string::npos) << "no code block for " << file;
    const size_t begin = at + marker.size();
    const size_t end = doc.find("```\n", begin);
    ASSERT_NE(end, std::string::npos) << file;
    EXPECT_EQ(doc.substr(begin, end - begin), read_text(file)) << file << " differs from the doc";
  }
  const std::string test = read_text("tests/sharing/example_mode_test.cc");
  const std::string marker = "<!-- example: registry line -->\n```cpp\n";
  const size_t at = doc.find(marker);
  ASSERT_NE(at, std::string::npos) << "no registry line in the doc";
  const size_t begin = at + marker.size();
  const std::string line = doc.substr(begin, doc.find('\n', begin) - begin);
  // The doc's line is an element of kModes; the test's is the same braces, as one constant.
  EXPECT_NE(
      test.find("const SharingModeEntry kEqualSlots = " + line.substr(4, line.size() - 5) + ";"),
      std::string::npos)
      << "the doc's registry line is not the test's: " << line;
}

}  // namespace
}  // namespace slicelab
