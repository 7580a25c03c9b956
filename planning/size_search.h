// The planner's search for the smallest size (node count) that meets a check, independent of
// the simulator: the check is injected, so the search logic is testable on its own.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace slicelab {

// Evaluates the check at every size of a batch (the caller may run them in parallel) and
// returns, per size, whether it meets all targets.
using BatchCheck = std::function<std::vector<bool>(std::span<const int> sizes)>;

struct SizeProbe {
  int size = 0;
  bool meets = false;
};

struct SizeSearchResult {
  std::optional<int> size;        // smallest size found that meets the check; none = infeasible
  std::vector<SizeProbe> probes;  // every size evaluated, ascending (verification re-runs too)
  bool non_monotone = false;      // some size met the check below a size that failed it
  int walked_up = 0;              // sizes walked up because the verification failed
};

// Galloping search from `min_size` (min, then doubling) in batches of `width` sizes for the
// first size that meets the check, then bisection (a `width`+1-section) between the largest
// failing and the smallest passing size. The answer is always a size whose check was run and
// passed; it is then verified by running the check once more, walking up one size at a time
// (to `max_size`) while it fails, so a non-monotone or flaky check never yields a size that
// fails its own check. Assumes monotonicity only to decide where to look, never to conclude.
SizeSearchResult find_smallest_size(int min_size, int max_size, int width, const BatchCheck& check);

}  // namespace slicelab
