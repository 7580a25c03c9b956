// printf's "%.<digits>g" for doubles, byte for byte, through std::to_chars (1.5 times as fast
// as fmt's precision path): the pods.csv writer formats five million numbers per million pods.
#pragma once

#include <fmt/format.h>

#include <cstddef>

namespace slicelab {

// The room write_general needs: %.17g of any double is at most 24 characters, and the fast
// path copies 16 bytes at a time (at most 40 bytes from the start).
inline constexpr size_t kGeneralMaxChars = 48;

// Writes the same text as append_general at `out`, which has room for kGeneralMaxChars
// characters, and returns the end of it (the pods.csv writer's rows are written in place).
char* write_general(char* out, double v, int digits);

// Appends the text printf("%.*g", digits, v) writes, which is also fmt's "{:.<digits>g}"
// (digits 1..17; others are clamped). std::to_chars specifies its general format with a
// precision as printf's %g.
void append_general(fmt::memory_buffer& out, double v, int digits);

}  // namespace slicelab
