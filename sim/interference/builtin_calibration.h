// The calibration slicelab uses when none is given to `slicelab calibrate`: the same classes and
// coefficients as calibration/default.yaml (a test keeps the two equal).
#pragma once

#include "sim/interference/calibration.h"

namespace slicelab {

Calibration builtin_calibration();

}  // namespace slicelab
