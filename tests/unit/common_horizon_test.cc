// Pins down put_on_common_horizon: every policy of a compare pays for the same cluster over the
// same window, whatever its own window was.
#include "sim/metrics/common_horizon.h"

#include <gtest/gtest.h>

#include <vector>

namespace slicelab {
namespace {

// 4 GPUs at $2/h and 2 at $0.5/h, over the window [start, end].
RunResult run_over(double start, double end) {
  RunResult r;
  r.summary.window_start_s = r.summary.cost_window_start_s = start;
  r.summary.window_end_s = r.summary.cost_window_end_s = end;
  const double hours = (end - start) / 3600.0;
  r.summary.per_model = {{.model = "A",
                          .gpus = 4,
                          .gpu_hours_provisioned = 4 * hours,
                          .cost_usd = 8 * hours,
                          .price_per_hour = 2.0},
                         {.model = "B",
                          .gpus = 2,
                          .gpu_hours_provisioned = 2 * hours,
                          .cost_usd = 1 * hours,
                          .price_per_hour = 0.5}};
  r.summary.gpu_hours_provisioned = 6 * hours;
  r.summary.cost_usd = 9 * hours;
  r.summary.allocation_ratio = 0.25;
  return r;
}

TEST(SimCommonHorizon, RunsWithDifferentWindowsCostTheSame) {
  // One policy's pods die early (ends at 1800 s), the other runs to 7200 s: both pay 2 hours.
  std::vector<RunResult> runs = {run_over(0, 1800), run_over(0, 7200)};
  put_on_common_horizon(runs);
  for (const RunResult& r : runs) {
    EXPECT_DOUBLE_EQ(r.summary.gpu_hours_provisioned, 12.0);  // 6 GPUs x 2 h
    EXPECT_DOUBLE_EQ(r.summary.cost_usd, 18.0);               // 4 x 2 h x $2 + 2 x 2 h x $0.5
    EXPECT_DOUBLE_EQ(r.summary.per_model[0].cost_usd, 16.0);
    EXPECT_DOUBLE_EQ(r.summary.per_model[1].gpu_hours_provisioned, 4.0);
    EXPECT_DOUBLE_EQ(r.summary.cost_window_start_s, 0.0);
    EXPECT_DOUBLE_EQ(r.summary.cost_window_end_s, 7200.0);
    EXPECT_DOUBLE_EQ(r.summary.allocation_ratio, 0.25);  // per its own window, untouched
  }
  // Their own windows stay.
  EXPECT_DOUBLE_EQ(runs[0].summary.window_end_s, 1800.0);
  EXPECT_DOUBLE_EQ(runs[1].summary.window_end_s, 7200.0);
}

TEST(SimCommonHorizon, TheHorizonStartsAtTheEarliestStart) {
  std::vector<RunResult> runs = {run_over(600, 1800), run_over(0, 900)};
  put_on_common_horizon(runs);
  EXPECT_DOUBLE_EQ(runs[0].summary.gpu_hours_provisioned, 6 * 0.5);  // [0, 1800]
  EXPECT_DOUBLE_EQ(runs[1].summary.cost_window_start_s, 0.0);
  EXPECT_DOUBLE_EQ(runs[1].summary.cost_window_end_s, 1800.0);
}

TEST(SimCommonHorizon, ARunAloneKeepsItsOwnWindow) {
  std::vector<RunResult> runs = {run_over(0, 1800)};
  put_on_common_horizon(runs);
  EXPECT_DOUBLE_EQ(runs[0].summary.cost_usd, 9 * 0.5);
  EXPECT_DOUBLE_EQ(runs[0].summary.cost_window_end_s, 1800.0);
}

}  // namespace
}  // namespace slicelab
