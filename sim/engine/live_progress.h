// A running pod's progress as the engine settles it between events: work left, when it was last
// settled, and its isolation error integrated over its run; held only while the pod runs.
#pragma once

namespace slicelab {

struct LiveProgress {
  double remaining = 0;    // seconds of solo run time still to do
  double last_update = 0;  // simulated time of the last settle
  double error_integral = 0, error_time = 0;

  // Isolation error `error` held for `dt` seconds.
  void accrue_error(double error, double dt) {
    error_integral += error * dt;
    error_time += dt;
  }
  // Time-weighted isolation error over the run so far, or -1 where none was measured.
  double isolation_error() const { return error_time > 0 ? error_integral / error_time : -1.0; }
};

}  // namespace slicelab
