// The one way slicelab runs independent tasks side by side (policies, sweep points, planner
// probes): fn(0) .. fn(count - 1) on a few threads, results by index, failures re-thrown here.
#pragma once

#include <cstddef>
#include <functional>

namespace slicelab {

// Runs fn(i) for every i in [0, count) on min(width, count) threads, the caller's among them;
// width 1 (or less) runs every call inline, in order. Indices are handed out in increasing
// order and fn writes its result by index, so results never depend on the width. When calls
// throw, no further index starts, the running ones finish, and the exception of the lowest
// failing index is re-thrown on the caller: every index below it has run, so which exception
// comes back does not depend on timing either.
void parallel_for(size_t count, int width, const std::function<void(size_t)>& fn);

// The same at the default width: the CPUs this process may use (default_jobs(), which respects
// the affinity mask and the cgroup's CPU quota, not only the hardware's thread count).
void parallel_for(size_t count, const std::function<void(size_t)>& fn);

}  // namespace slicelab
