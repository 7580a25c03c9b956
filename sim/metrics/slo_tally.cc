#include "sim/metrics/slo_tally.h"

namespace slicelab {

void SloTally::add(const PodSpec& spec, const PodOutcome& o) {
  if (!spec.has_slo()) return;
  ++pods;
  if (o.status == PodStatus::kPending || o.status == PodStatus::kRunning) {
    ++undecided;
  } else if (o.status == PodStatus::kCompleted) {
    const double q = o.start_s - spec.arrival_s;
    const double j = o.finish_s - spec.arrival_s;
    const PodSlo& slo = *spec.slo;
    const bool ok =
        (!slo.max_queue_s || q <= *slo.max_queue_s) && (!slo.max_jct_s || j <= *slo.max_jct_s);
    met += ok ? 1 : 0;
  }
}

std::optional<double> SloTally::attainment() const {
  if (pods <= undecided) return std::nullopt;
  return static_cast<double>(met) / static_cast<double>(pods - undecided);
}

}  // namespace slicelab
