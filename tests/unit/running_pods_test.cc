// Pins down RunningPods and LiveProgress: settling progress at a rate with an isolation error,
// the finish it implies, and a slot's state made fresh when another pod starts in it.
#include "sim/engine/running_pods.h"

#include <gtest/gtest.h>

namespace slicelab {
namespace {

TEST(SimLiveProgress, IsolationErrorIsTheTimeWeightedMean) {
  LiveProgress measured, unmeasured;
  measured.accrue_error(0.2, 10);
  measured.accrue_error(0.4, 30);
  // (0.2 x 10 + 0.4 x 30) / 40 = 0.35; the other never measured.
  EXPECT_DOUBLE_EQ(measured.isolation_error(), 0.35);
  EXPECT_EQ(unmeasured.isolation_error(), -1.0);
}

TEST(SimLiveProgress, SettleSpendsWorkAtTheRateAndAccruesTheError) {
  // 100 s of work from t = 10. At rate 0.5 until t = 50: 20 s done, 80 left; error 0.1 over
  // those 40 s. Then rate 2 and no error promised until t = 60: 20 s done, 60 left.
  LiveProgress p;
  p.remaining = 100;
  p.last_update = 10;
  p.settle(50, 0.5, 0.1);
  EXPECT_DOUBLE_EQ(p.remaining, 80.0);
  EXPECT_DOUBLE_EQ(p.last_update, 50.0);
  p.settle(60, 2.0, -1.0);
  EXPECT_DOUBLE_EQ(p.remaining, 60.0);
  EXPECT_DOUBLE_EQ(p.isolation_error(), 0.1);  // the 10 s without a promise do not count
  // 60 s of work at rate 3 from t = 60: done at 80.
  EXPECT_DOUBLE_EQ(p.finish_s(60, 3.0), 80.0);
  // Past its end it has nothing left, not less than nothing.
  p.settle(200, 1.0, -1.0);
  EXPECT_EQ(p.remaining, 0.0);
}

TEST(SimRunningPods, AStartMakesTheSlotFreshAndKeepsTheBoundRequest) {
  RunningPods live;
  PodRequest a, b;
  a.claim_units = 300;
  b.claim_units = 700;
  live.start(2, a).progress.remaining = 50;  // slots 0..2 exist now
  EXPECT_EQ(live.slots(), 3U);
  EXPECT_EQ(live[2].bound.claim_units, 300);
  // Another pod in slot 2: the first one's progress is gone.
  live.start(2, b);
  EXPECT_EQ(live[2].bound.claim_units, 700);
  EXPECT_EQ(live[2].progress.remaining, 0.0);
  EXPECT_EQ(live.slots(), 3U);
}

}  // namespace
}  // namespace slicelab
