// Whether pods met their SLOs: the one rule the run summary and its per-class figures both
// count by (docs/results-format.md, `slo.*`), so the two can never disagree.
#pragma once

#include <cstddef>
#include <optional>

#include "sim/metrics/run_result.h"
#include "workloads/pod_spec.h"

namespace slicelab {

struct SloTally {
  size_t pods = 0;       // pods with an SLO
  size_t met = 0;        // ... that met it
  size_t undecided = 0;  // ... still waiting at the end, before their limit passed

  // Counts `spec`'s outcome `o` at the end of the window `end_s` by slo_verdict.h's rule; a pod
  // without an SLO is not counted.
  void add(const PodSpec& spec, const PodOutcome& o, double end_s);
  // met / (pods - undecided); none when no pod was decided.
  std::optional<double> attainment() const;
};

}  // namespace slicelab
