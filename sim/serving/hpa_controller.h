// The HorizontalPodAutoscaler's decision, as Kubernetes' controller makes it, on simulated time:
// the replica calculator's ratio rule and tolerance, stabilization windows and scaling policies.
#pragma once

#include <cstdint>
#include <vector>

namespace slicelab {

// autoscaling/v2 HPAScalingPolicy: at most `value` pods, or `value` percent, per `period_s`.
struct HpaPolicy {
  enum class Type : uint8_t { kPods, kPercent };
  Type type = Type::kPercent;
  int value = 100;
  double period_s = 15.0;
};

// autoscaling/v2 HPAScalingRules. select: kMax takes the policy allowing the largest change
// (Kubernetes' default), kMin the smallest, kDisabled forbids scaling in that direction.
struct HpaRules {
  enum class Select : uint8_t { kMax, kMin, kDisabled };
  double stabilization_s = 0.0;
  std::vector<HpaPolicy> policies;
  Select select = Select::kMax;
};

// Kubernetes' defaults: scale up by 100% or 4 pods per 15 s, whichever is more, at once; scale
// down by up to 100% per 15 s, to the highest recommendation of the last 300 s; tolerance 0.1;
// a sync every 15 s (kube-controller-manager's --horizontal-pod-autoscaler-sync-period).
inline constexpr double kHpaSyncPeriodS = 15.0;

struct HpaSpec {
  int min_replicas = 1;
  int max_replicas = 1;
  double target = 1.0;  // the metric's target per replica (its AverageValue), > 0
  double tolerance = 0.1;
  double sync_period_s = kHpaSyncPeriodS;
  HpaRules scale_up{0.0,
                    {{HpaPolicy::Type::kPercent, 100, 15.0}, {HpaPolicy::Type::kPods, 4, 15.0}},
                    HpaRules::Select::kMax};
  HpaRules scale_down{300.0, {{HpaPolicy::Type::kPercent, 100, 15.0}}, HpaRules::Select::kMax};
};

// One HPA's state. Memory is bounded by the windows: recommendations and scale events older than
// the longest window are reused, as the controller does (at most window / sync period + 1 each).
class HpaController {
 public:
  explicit HpaController(HpaSpec spec);

  // A sync at `now` (non-decreasing): `current` replicas exist, `ready` of them serve and report
  // the metric, whose sum over them is `metric_sum`. Returns the replica count to scale to.
  int sync(double now, int current, int ready, double metric_sum);

  // The replica calculator alone (replica_calculator.go, GetResourceReplicas /
  // GetMetricReplicas): ceil(ratio x ready) beyond the tolerance; when scaling up, replicas not
  // ready yet count as using nothing.
  int calculate(int current, int ready, double metric_sum) const;

  const HpaSpec& spec() const { return spec_; }

 private:
  struct Stamped {
    double at = 0;
    int value = 0;
  };
  int stabilize(double now, int current, int desired);
  int limit_rate(double now, int current, int desired) const;
  // The furthest count the scale-up (up) or scale-down policies allow from `current` now.
  int policy_limit(double now, int current, bool up) const;
  static int change_in_period(const std::vector<Stamped>& events, double now, double period_s);
  static void store(std::vector<Stamped>& list, double now, double keep_s, int value);

  HpaSpec spec_;
  std::vector<Stamped> recommendations_;
  std::vector<Stamped> scale_up_events_;
  std::vector<Stamped> scale_down_events_;
};

}  // namespace slicelab
