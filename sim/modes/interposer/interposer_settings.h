// Sharing mode interposer's settings (issue 4; docs/sharing-models.md), read by its reader
// (sim/modes/plain_modes_reader.cc); null in SharingConfig: these defaults.
#pragma once

#include <optional>

namespace slicelab {

struct InterposerSettings {
  // Added CPU time per kernel launch (bench/limiter_overhead --paired, LaunchKernel). Unset: the
  // calibration's interposer_launch_overhead_ns, else kDefaultLaunchOverheadNs.
  std::optional<double> launch_overhead_ns{};
  static constexpr double kDefaultLaunchOverheadNs = 23.0;
  double limiter_window_s = 1.0;  // simulated time of the limiter per tenant set
};

}  // namespace slicelab
