// printf's "%.<digits>g" for doubles, byte for byte, through std::to_chars (1.5 times as fast
// as fmt's precision path): the pods.csv writer formats five million numbers per million pods.
#pragma once

#include <fmt/format.h>

namespace slicelab {

// Appends the text printf("%.*g", digits, v) writes, which is also fmt's "{:.<digits>g}"
// (digits 1..17; others are clamped). std::to_chars specifies its general format with a
// precision as printf's %g.
void append_general(fmt::memory_buffer& out, double v, int digits);

}  // namespace slicelab
