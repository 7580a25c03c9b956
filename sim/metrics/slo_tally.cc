#include "sim/metrics/slo_tally.h"

#include "sim/metrics/slo_verdict.h"

namespace slicelab {

void SloTally::add(const PodSpec& spec, const PodOutcome& o, double end_s) {
  if (!spec.has_slo()) return;
  ++pods;
  // Pods left waiting past their limit count as missed (slo_verdict.h), so that starving SLO
  // pods does not shrink the denominator.
  const SloVerdict v = slo_verdict(*spec.slo, spec.arrival_s, o, end_s);
  met += v == SloVerdict::kMet ? 1 : 0;
  undecided += v == SloVerdict::kUndecided ? 1 : 0;
}

std::optional<double> SloTally::attainment() const {
  if (pods <= undecided) return std::nullopt;
  return static_cast<double>(met) / static_cast<double>(pods - undecided);
}

}  // namespace slicelab
