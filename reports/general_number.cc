#include "reports/general_number.h"

#include <charconv>

namespace slicelab {

void append_general(fmt::memory_buffer& out, double v, int digits) {
  const int precision = digits < 1 ? 1 : (digits > 17 ? 17 : digits);
  char text[32];  // %.17g of any double fits in 24 characters
  const std::to_chars_result r =
      std::to_chars(text, text + sizeof text, v, std::chars_format::general, precision);
  out.append(text, r.ptr);
}

}  // namespace slicelab
