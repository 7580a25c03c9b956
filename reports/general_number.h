// printf's "%.<digits>g" for doubles, byte for byte, through std::to_chars (1.5 times as fast
// as fmt's precision path): the pods.csv writer formats five million numbers per million pods.
#pragma once

#include <fmt/format.h>

namespace slicelab {

// Appends the text printf("%.*g", digits, v) writes (digits 1..17; others are clamped).
// For up to 14 digits of a normal double, the digits come from std::to_chars' shortest
// round-trip form rounded to `digits`, which is the exactly rounded result unless the shortest
// form is a midpoint of the rounding grid (proof in the .cc); the rare midpoint, subnormal and
// non-finite values and 15-17 digits go through std::to_chars' own %g path.
void append_general(fmt::memory_buffer& out, double v, int digits);

}  // namespace slicelab
