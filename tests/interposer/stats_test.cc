// `slicelab interposer stats <region>` against a region a live interposed process is using.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <sstream>
#include <string>

#include "tests/interposer/harness.h"

namespace {

using namespace slicelab::test;

// Runs the slicelab command (not preloaded) and returns its exit code and output.
std::pair<int, std::string> slicelab(const std::string& args) {
  const std::string cmd = std::string(SLICELAB_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(InterposerStats, ShowsCapsUsageLaunchesPerDeviceAndProcess) {
  const std::string region = fresh_region();
  Child a = start({"hold", "41943040", "10"}, {{"SLICELAB_SHARED_REGION", region},
                                               {"SLICELAB_MEMORY_LIMIT", "64m"},
                                               {"SLICELAB_SM_LIMIT_0", "50"}});
  ASSERT_TRUE(wait_for(a, "held result=0")) << a.out;
  auto [code, out] = slicelab("interposer stats " + region);
  EXPECT_EQ(code, 0) << out;
  // device 0: cap 64 MiB, 40 MiB in use, nothing reserved, 50% SM cap, 10 launches.
  std::istringstream lines(out);
  std::string line, row0;
  while (std::getline(lines, line))
    if (line.starts_with("0 ")) row0 = line;
  std::istringstream words(row0);
  std::string normalised, w;
  while (words >> w) normalised += (normalised.empty() ? "" : " ") + w;
  EXPECT_EQ(normalised, "0 64.0 MiB 40.0 MiB 0 B 50% 10 0.000") << out;
  EXPECT_EQ(out.find("\n1 "), std::string::npos) << "device 1 was never used: " << out;
  EXPECT_NE(out.find("pid " + std::to_string(a.pid) + ": device 0 40.0 MiB in use, 10 launches"),
            std::string::npos)
      << out;
  kill9(a);
  std::tie(code, out) = slicelab("interposer stats " + region);
  EXPECT_NE(out.find("pid " + std::to_string(a.pid) + " (dead; reclaimed"), std::string::npos)
      << out;
  unlink(region.c_str());
  std::tie(code, out) = slicelab("interposer stats " + region);
  EXPECT_NE(code, 0);
  EXPECT_NE(out.find("error: " + region + ": No such file"), std::string::npos) << out;
}

}  // namespace
