// Pins down `slicelab plugins` end to end: every kind has its section, every registered name its
// line with its description, and `slicelab --help` offers the command.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "sim/modes/mode_registry.h"
#include "sim/placement/plugin_registry.h"
#include "tests/support/cli_run.h"

namespace slicelab {
namespace plugins_cli_test {

namespace fs = std::filesystem;

class PluginsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "slicelab-plugins-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    tmp_ = pattern;
  }
  void TearDown() override { fs::remove_all(tmp_); }
  testing::CliRun slicelab(const std::string& args) {
    return testing::run_program(SLICELAB_BINARY, args, tmp_, "run-" + std::to_string(calls_++));
  }
  fs::path tmp_;
  int calls_ = 0;
};

// The line of `name` under the heading that starts with `heading`, "" if there is none.
std::string line_in_section(const std::string& out, const std::string& heading,
                            const std::string& name) {
  std::istringstream in(out);
  bool inside = false;
  for (std::string l; std::getline(in, l);) {
    if (l.rfind(heading, 0) == 0)
      inside = true;
    else if (inside && l.empty())
      return "";
    else if (inside && l.rfind("  " + name + " ", 0) == 0)
      return l;
  }
  return "";
}

TEST_F(PluginsCli, ListsEveryKindWithItsNamesAndDescriptions) {
  const auto r = slicelab("plugins");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // A few lines as a user reads them.
  EXPECT_NE(line_in_section(r.out, "presets (", "fgd").find("fragmentation gradient descent"),
            std::string::npos)
      << r.out;
  EXPECT_NE(line_in_section(r.out, "filters (", "gpu-capacity").find("enough GPUs"),
            std::string::npos);
  EXPECT_NE(line_in_section(r.out, "scorers (", "binpack").find("min-max normalised"),
            std::string::npos);
  EXPECT_NE(line_in_section(r.out, "device pickers (", "topology").find("HAMi"), std::string::npos);
  EXPECT_NE(line_in_section(r.out, "tie-break rules (", "node-order").find("seeded node order"),
            std::string::npos);
  EXPECT_NE(line_in_section(r.out, "sharing modes (", "whole-card").find("no sharing"),
            std::string::npos);
  // A name registered for one kind is not listed under another.
  EXPECT_EQ(line_in_section(r.out, "filters (", "binpack"), "");
  // And every entry of the tables, in its own section.
  for (const auto& p : placement_plugins()) {
    const std::string heading = std::string(plugin_kind_name(p.kind())) + "s (";
    EXPECT_NE(line_in_section(r.out, heading, std::string(p.name)).find(p.description),
              std::string::npos)
        << heading << p.name;
  }
  for (const auto& m : sharing_modes())
    EXPECT_NE(line_in_section(r.out, "sharing modes (", std::string(m.name)).find(m.description),
              std::string::npos)
        << m.name;
}

TEST_F(PluginsCli, HelpOffersTheCommand) {
  const auto r = slicelab("--help");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("plugins"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tie-break rules and sharing modes"), std::string::npos) << r.out;
}

}  // namespace plugins_cli_test
}  // namespace slicelab
