// Compiling the CEL selectors of DRA objects read from files, with each unsupported construct
// located at its line and column in the file the expression came from.
#pragma once

#include "sim/dra/cel_expression.h"
#include "workloads/dra_objects.h"

namespace slicelab {

CelExpression compile_selector(const DraCelText& text);

// Compiles every selector of `objects` (device classes, claims and their firstAvailable
// subrequests), so that a file outside the subset fails when it is loaded, not when allocating.
void check_dra_selectors(const DraObjects& objects);

}  // namespace slicelab
