// Pins down the autoscaler against Kubernetes' HPA rules on hand-worked cases: the ratio rule
// and tolerance, a load step within the scaling policies, the scale-down stabilization window,
// no flapping under noise, min and max, replicas that are still starting.
#include "sim/serving/hpa_controller.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "workloads/rng.h"

namespace slicelab {
namespace {

HpaSpec spec(int min, int max, double target) {
  HpaSpec s;
  s.min_replicas = min;
  s.max_replicas = max;
  s.target = target;
  return s;
}

TEST(HpaController, RatioRuleAndTolerance) {
  const HpaController hpa(spec(1, 100, 10.0));
  // 4 replicas at 15 per replica: ratio 1.5, ceil(1.5 x 4) = 6.
  EXPECT_EQ(hpa.calculate(4, 4, 60.0), 6);
  // Within 10% of the target: no change.
  EXPECT_EQ(hpa.calculate(4, 4, 43.9), 4);
  EXPECT_EQ(hpa.calculate(4, 4, 36.1), 4);
  // 4 replicas at 5: ratio 0.5, ceil(2) = 2.
  EXPECT_EQ(hpa.calculate(4, 4, 20.0), 2);
  // No replica reports a metric: no decision.
  EXPECT_EQ(hpa.calculate(3, 0, 0.0), 3);
}

TEST(HpaController, StartingReplicasCountAsIdleWhenScalingUp) {
  const HpaController hpa(spec(1, 100, 10.0));
  // 2 ready at 20 each (ratio 2), 2 still starting: 40 / (4 x 10) = 1, within the tolerance.
  EXPECT_EQ(hpa.calculate(4, 2, 40.0), 4);
  // 2 ready at 30 each: 60 / 40 = 1.5 over all 4: ceil(6) = 6.
  EXPECT_EQ(hpa.calculate(4, 2, 60.0), 6);
  // Scaling down ignores the starting ones: 2 ready at 2.5, ratio 0.25: ceil(0.5) = 1.
  EXPECT_EQ(hpa.calculate(4, 2, 5.0), 1);
}

TEST(HpaController, ALoadStepScalesUpWithinThePolicies) {
  // From 10 replicas the load triples: ratio 3 asks for 30; the default policies allow 100% or
  // 4 pods per 15 s, whichever is more: 20 at the first sync, 30 at the next.
  HpaController hpa(spec(1, 100, 1.0));
  EXPECT_EQ(hpa.sync(0, 10, 10, 10.0), 10);
  EXPECT_EQ(hpa.sync(15, 10, 10, 30.0), 20);
  EXPECT_EQ(hpa.sync(30, 20, 10, 30.0), 30);  // the 10 new ones still start: they count as idle
  // From 2 replicas a tenfold step: 4 pods beat 100%: 6, then 10, then 14, ...
  HpaController small(spec(1, 100, 1.0));
  EXPECT_EQ(small.sync(0, 2, 2, 20.0), 6);
  EXPECT_EQ(small.sync(15, 6, 6, 60.0), 12);  // 100% of 6 beats 4 pods
  EXPECT_EQ(small.sync(30, 12, 12, 120.0), 24);
}

TEST(HpaController, ScaleDownWaitsForTheStabilizationWindow) {
  HpaController hpa(spec(1, 100, 1.0));
  EXPECT_EQ(hpa.sync(0, 8, 8, 8.0), 8);
  // The load falls to a quarter: the highest recommendation of the last 300 s is still 8.
  for (double t = 15; t < 300; t += 15) EXPECT_EQ(hpa.sync(t, 8, 8, 2.0), 8) << t;
  // 300 s: the recommendation of 8 at t = 0 is no longer after the cutoff (now - 300 s).
  EXPECT_EQ(hpa.sync(300, 8, 8, 2.0), 2);
}

TEST(HpaController, NoFlappingUnderNoise) {
  // An hour of syncs of a steady load worth 10 replicas, measured with +-25% noise: the
  // tolerance absorbs some, the scale-down window the rest, and the count never goes down within
  // 300 s of going up.
  HpaController hpa(spec(1, 50, 1.0));
  Rng rng(3);
  int replicas = 10;
  double last_up = -1e9;
  int ups = 0, downs = 0;
  for (double t = 0; t < 3600; t += 15) {
    const double load = 10.0 * (1.0 + 0.5 * (rng.uniform() - 0.5));
    const int next = hpa.sync(t, replicas, replicas, load);
    if (next > replicas) {
      ++ups;
      last_up = t;
    }
    if (next < replicas) {
      ++downs;
      EXPECT_GE(t - last_up, 300.0) << "scaled down " << t - last_up << " s after scaling up";
    }
    replicas = next;
  }
  // A random walk would change direction dozens of times; the rules keep it to a few moves.
  EXPECT_LE(ups + downs, 8);
  EXPECT_GE(replicas, 8);
  EXPECT_LE(replicas, 14);
}

TEST(HpaController, MinAndMaxHold) {
  HpaController hpa(spec(2, 5, 1.0));
  EXPECT_EQ(hpa.sync(0, 3, 3, 1000.0), 5);  // ratio 333: the maximum
  EXPECT_EQ(hpa.sync(15, 5, 5, 1000.0), 5);
  HpaController idle(spec(2, 5, 1.0));
  EXPECT_EQ(idle.sync(0, 4, 4, 0.0), 2);  // no load: the minimum (after no window, nothing above)
  // Outside the bounds to begin with: brought back first.
  HpaController out(spec(2, 5, 1.0));
  EXPECT_EQ(out.sync(0, 9, 9, 9.0), 5);
  EXPECT_EQ(out.sync(15, 1, 1, 1.0), 2);
}

TEST(HpaController, PoliciesCanSlowOrForbidADirection) {
  HpaSpec s = spec(1, 100, 1.0);
  s.scale_up.policies = {{HpaPolicy::Type::kPods, 1, 60.0}};
  s.scale_down.select = HpaRules::Select::kDisabled;
  HpaController hpa(s);
  EXPECT_EQ(hpa.sync(0, 4, 4, 40.0), 5);   // one pod per minute
  EXPECT_EQ(hpa.sync(15, 5, 5, 50.0), 5);  // that minute's pod is spent
  EXPECT_EQ(hpa.sync(60, 5, 5, 50.0), 6);  // the event at 0 left the period
  EXPECT_EQ(hpa.sync(400, 6, 6, 0.0), 6);  // never down
}

TEST(HpaController, ScaleDownPoliciesPickTheMostOrTheLeastChange) {
  // From 8 to a desired 2 at once (no window): 1 pod per minute proposes 7, 50% per minute 4.
  HpaSpec s = spec(1, 100, 1.0);
  s.scale_down.stabilization_s = 0;
  s.scale_down.policies = {{HpaPolicy::Type::kPods, 1, 60.0},
                           {HpaPolicy::Type::kPercent, 50, 60.0}};
  HpaController most(s);
  EXPECT_EQ(most.sync(0, 8, 8, 2.0), 4);
  // 30 s later the period still counts those 4: it started at 8, so 50% allows 4 again.
  EXPECT_EQ(most.sync(30, 4, 4, 1.0), 4);
  s.scale_down.select = HpaRules::Select::kMin;
  HpaController least(s);
  EXPECT_EQ(least.sync(0, 8, 8, 2.0), 7);
  // Min on the way up: 100% of 2 proposes 4, 4 pods 6: the least change is 4.
  HpaSpec u = spec(1, 100, 1.0);
  u.scale_up.select = HpaRules::Select::kMin;
  HpaController up(u);
  EXPECT_EQ(up.sync(0, 2, 2, 20.0), 4);
}

TEST(HpaController, RefusesASpecItCannotFollow) {
  EXPECT_THROW(HpaController(spec(0, 3, 1.0)), std::invalid_argument);
  EXPECT_THROW(HpaController(spec(3, 2, 1.0)), std::invalid_argument);
  EXPECT_THROW(HpaController(spec(1, 2, 0.0)), std::invalid_argument);
}

}  // namespace
}  // namespace slicelab
