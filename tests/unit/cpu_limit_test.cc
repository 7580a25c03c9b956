// The default --jobs: cgroup v2 and v1 CPU quotas read from fixture folders laid out as
// /sys/fs/cgroup is (never the real machine's), and the limit applied to the job count.
#include "sim/parallel/cpu_limit.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

using CpuLimit = testing::TempFilesTest;

TEST(CpuMax, ParsesQuotaAndPeriod) {
  EXPECT_EQ(cpus_from_cpu_max("200000 100000"), 2U);
  EXPECT_EQ(cpus_from_cpu_max("200000 100000\n"), 2U);
  EXPECT_EQ(cpus_from_cpu_max("150000 100000"), 2U);  // 1.5 CPUs: rounded up
  EXPECT_EQ(cpus_from_cpu_max("50000 100000"), 1U);   // half a CPU still runs one job
  EXPECT_EQ(cpus_from_cpu_max("400000 50000"), 8U);
  EXPECT_EQ(cpus_from_cpu_max("max 100000"), std::nullopt);
  for (const char* bad : {"", "max", "100000", "x 100000", "100000 0", "0 100000", "-1 100000",
                          "200000 100000 7", "2e5 100000"})
    EXPECT_EQ(cpus_from_cpu_max(bad), std::nullopt) << bad;
}

TEST(CpuMax, ParsesCfsQuotaAndPeriod) {
  EXPECT_EQ(cpus_from_cfs("300000\n", "100000\n"), 3U);
  EXPECT_EQ(cpus_from_cfs("-1", "100000"), std::nullopt);  // v1's "no limit"
  EXPECT_EQ(cpus_from_cfs("abc", "100000"), std::nullopt);
  EXPECT_EQ(cpus_from_cfs("100000", ""), std::nullopt);
}

TEST_F(CpuLimit, ReadsCgroupV2) {
  write("cpu.max", "300000 100000\n");
  EXPECT_EQ(cgroup_cpu_limit(dir_), 3U);
  write("cpu.max", "max 100000\n");
  EXPECT_EQ(cgroup_cpu_limit(dir_), std::nullopt);
}

TEST_F(CpuLimit, ReadsCgroupV1InEitherFolderName) {
  for (const char* folder : {"cpu", "cpu,cpuacct"}) {
    SCOPED_TRACE(folder);
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / folder);
    write(std::string(folder) + "/cpu.cfs_quota_us", "250000\n");
    write(std::string(folder) + "/cpu.cfs_period_us", "100000\n");
    EXPECT_EQ(cgroup_cpu_limit(dir_), 3U);
    write(std::string(folder) + "/cpu.cfs_quota_us", "-1\n");
    EXPECT_EQ(cgroup_cpu_limit(dir_), std::nullopt);
  }
}

TEST_F(CpuLimit, NoControllerNoLimit) {
  EXPECT_EQ(cgroup_cpu_limit(dir_), std::nullopt);
}

// Without a cgroup namespace the mount shows the whole tree: the process's own cgroup (from
// /proc/self/cgroup) and its ancestors hold the limits, and the smallest of them applies.
TEST_F(CpuLimit, FollowsTheProcessCgroupAndItsAncestorsV2) {
  std::filesystem::create_directories(dir_ / "kubepods" / "pod1" / "c1");
  write("kubepods/pod1/c1/cpu.max", "max 100000\n");
  write("kubepods/pod1/cpu.max", "300000 100000\n");
  write("kubepods/cpu.max", "800000 100000\n");
  write("cpu.max", "100000 100000\n");  // the mount is an ancestor too
  const std::string self = "0::/kubepods/pod1/c1\n";
  EXPECT_EQ(cgroup_cpu_limit(dir_, self), 1U);
  std::filesystem::remove(dir_ / "cpu.max");
  EXPECT_EQ(cgroup_cpu_limit(dir_, self), 3U);
  EXPECT_EQ(cgroup_cpu_limit(dir_, "0::/kubepods\n"), 8U);
  EXPECT_EQ(cgroup_cpu_limit(dir_, "0::/../../elsewhere\n"), std::nullopt);  // never outside
}

TEST_F(CpuLimit, FollowsTheProcessCgroupV1) {
  std::filesystem::create_directories(dir_ / "cpu,cpuacct" / "docker" / "abc");
  write("cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
  write("cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  write("cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "200000\n");
  write("cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(cgroup_cpu_limit(dir_, "5:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n"), 2U);
  EXPECT_EQ(cgroup_cpu_limit(dir_, "5:memory:/docker/abc\n"), std::nullopt);  // no cpu line
}

TEST_F(CpuLimit, DefaultJobsRespectsTheQuota) {
  std::filesystem::create_directories(dir_ / "mount");
  const std::string self = write("self-cgroup", "0::/\n");
  write("mount/cpu.max", "100000 100000\n");
  EXPECT_EQ(default_jobs(dir_ / "mount", self), 1);
  write("mount/cpu.max", "max 100000\n");
  const int unlimited = default_jobs(dir_ / "mount", self);
  EXPECT_GE(unlimited, 1);
  EXPECT_LE(unlimited, static_cast<int>(std::max(1U, std::thread::hardware_concurrency())));
  write("mount/cpu.max", "100000000 100000\n");  // 1000 CPUs: more than the machine has
  EXPECT_EQ(default_jobs(dir_ / "mount", self), unlimited);
}

}  // namespace
}  // namespace slicelab
