#include "sim/serving/hpa_controller.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace slicelab {
namespace {

double longest_period(const HpaRules& rules) {
  double longest = 0;
  for (const HpaPolicy& p : rules.policies) longest = std::max(longest, p.period_s);
  return longest;
}

}  // namespace

HpaController::HpaController(HpaSpec spec) : spec_(std::move(spec)) {
  if (spec_.min_replicas < 1 || spec_.max_replicas < spec_.min_replicas || !(spec_.target > 0) ||
      spec_.tolerance < 0 || !(spec_.sync_period_s > 0))
    throw std::invalid_argument(
        "an autoscaler needs 1 <= min_replicas <= max_replicas, a target > 0, a tolerance >= 0 "
        "and a sync period > 0");
}

int HpaController::calculate(int current, int ready, double metric_sum) const {
  if (ready <= 0) return current;  // no metrics: the controller does not scale
  const double ratio = metric_sum / ready / spec_.target;
  const int unready = current - ready;
  if (unready <= 0 || ratio <= 1.0) {
    if (std::abs(1.0 - ratio) <= spec_.tolerance) return current;
    return static_cast<int>(std::ceil(ratio * ready));
  }
  // Scaling up with replicas still starting: they count as using nothing, and the decision is
  // dropped when that brings the ratio within the tolerance or turns its direction.
  const double rebalanced = metric_sum / current / spec_.target;
  if (std::abs(1.0 - rebalanced) <= spec_.tolerance || rebalanced < 1.0) return current;
  const int desired = static_cast<int>(std::ceil(rebalanced * current));
  return desired < current ? current : desired;
}

void HpaController::store(std::vector<Stamped>& list, double now, double keep_s, int value) {
  // Reuse a slot older than every window that reads it (the controller's outdated samples).
  for (Stamped& s : list)
    if (s.at < now - keep_s) {
      s = {now, value};
      return;
    }
  list.push_back({now, value});
}

int HpaController::stabilize(double now, int current, int desired) {
  // stabilizeRecommendationWithBehaviors: within the scale-up window the lowest recommendation,
  // within the scale-down window the highest, and the current count brought between them.
  int up = desired;
  int down = desired;
  for (const Stamped& r : recommendations_) {
    if (r.at > now - spec_.scale_up.stabilization_s) up = std::min(up, r.value);
    if (r.at > now - spec_.scale_down.stabilization_s) down = std::max(down, r.value);
  }
  int recommendation = current;
  if (recommendation < up) recommendation = up;
  if (recommendation > down) recommendation = down;
  store(recommendations_, now,
        std::max(spec_.scale_up.stabilization_s, spec_.scale_down.stabilization_s), desired);
  return recommendation;
}

int HpaController::change_in_period(const std::vector<Stamped>& events, double now,
                                    double period_s) {
  int change = 0;
  for (const Stamped& e : events)
    if (e.at > now - period_s) change += e.value;
  return change;
}

int HpaController::policy_limit(double now, int current, bool up) const {
  // calculateScaleUpLimitWithScalingRules / calculateScaleDownLimitWithBehaviors: each policy
  // proposes a count from the one at its period's start; Max takes the furthest, Min the nearest.
  const HpaRules& rules = up ? spec_.scale_up : spec_.scale_down;
  if (rules.select == HpaRules::Select::kDisabled || rules.policies.empty()) return current;
  const int sign = up ? 1 : -1;
  const bool most = rules.select == HpaRules::Select::kMax;
  int best = 0;  // the chosen policy's change, counted in the direction of scaling
  for (size_t k = 0; k < rules.policies.size(); ++k) {
    const HpaPolicy& p = rules.policies[k];
    const int start = current - change_in_period(scale_up_events_, now, p.period_s) +
                      change_in_period(scale_down_events_, now, p.period_s);
    const double factor = 1.0 + sign * p.value / 100.0;
    // Up rounds up (a change that rounds to nothing would never scale), down truncates.
    const int proposed = p.type == HpaPolicy::Type::kPods ? start + sign * p.value
                         : up ? static_cast<int>(std::ceil(start * factor))
                              : static_cast<int>(start * factor);
    const int change = sign * (proposed - current);
    best = k == 0 ? change : most ? std::max(best, change) : std::min(best, change);
  }
  // Changes already made this period can leave no room: never past `current` the other way.
  return current + sign * std::max(best, 0);
}

int HpaController::limit_rate(double now, int current, int desired) const {
  // convertDesiredReplicasWithBehaviorRate.
  if (desired > current)
    return std::min({desired, policy_limit(now, current, true), spec_.max_replicas});
  if (desired < current)
    return std::max({desired, policy_limit(now, current, false), spec_.min_replicas});
  return desired;
}

int HpaController::sync(double now, int current, int ready, double metric_sum) {
  // Outside [min, max] the controller first brings the count back within them.
  int next = current;
  if (current > spec_.max_replicas) {
    next = spec_.max_replicas;
  } else if (current < spec_.min_replicas) {
    next = spec_.min_replicas;
  } else {
    const int desired = calculate(current, ready, metric_sum);
    next = limit_rate(now, current, stabilize(now, current, desired));
  }
  if (next > current)
    store(scale_up_events_, now, longest_period(spec_.scale_up), next - current);
  else if (next < current)
    store(scale_down_events_, now, longest_period(spec_.scale_down), current - next);
  return next;
}

}  // namespace slicelab
