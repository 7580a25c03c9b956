// How many CPUs this process may really use: the smallest of the hardware's count, the
// affinity mask and the cgroup's CPU quota, so the default --jobs does not oversubscribe a
// container.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

namespace slicelab {

// cgroup v2's cpu.max ("max 100000" or "QUOTA PERIOD"): the CPUs the quota allows, rounded up
// (a quota of 1.5 CPUs lets two threads run part of the time); nullopt for no limit or text
// that is not a cpu.max.
std::optional<unsigned> cpus_from_cpu_max(std::string_view text);
// cgroup v1's cpu.cfs_quota_us and cpu.cfs_period_us (quota -1: no limit); as above.
std::optional<unsigned> cpus_from_cfs(std::string_view quota, std::string_view period);

// The CPU limit of this process's cgroup under `cgroup_root` (normally /sys/fs/cgroup), given
// the text of /proc/self/cgroup: v2's cpu.max, else v1's cpu/ (or cpu,cpuacct/) quota and
// period, in the process's own cgroup and every ancestor up to the root (the smallest applies);
// nullopt where none is set or readable.
std::optional<unsigned> cgroup_cpu_limit(const std::filesystem::path& cgroup_root,
                                         std::string_view proc_self_cgroup = "");

// The default number of parallel runs: min(hardware threads, CPUs in the affinity mask, the
// cgroup's quota), at least 1. The cgroup files are read under `cgroup_root`, the process's
// cgroup from `proc_self_cgroup` (a file like /proc/self/cgroup).
int default_jobs(const std::filesystem::path& cgroup_root = "/sys/fs/cgroup",
                 const std::filesystem::path& proc_self_cgroup = "/proc/self/cgroup");

}  // namespace slicelab
