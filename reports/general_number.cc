#include "reports/general_number.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>

namespace slicelab {
namespace {

void append_exact(fmt::memory_buffer& out, double v, int digits) {
  char text[64];  // %.17g of any double fits in 24 characters
  const std::to_chars_result r =
      std::to_chars(text, text + sizeof text, v, std::chars_format::general, digits);
  out.append(text, r.ptr);
}

}  // namespace

// Why rounding the shortest form S (n digits) of a double x to P digits is exact: x and S lie in
// x's rounding interval (half an ulp either side), so the two round differently only if a
// midpoint M of the P-digit grid (P + 1 digits, the last a 5) lies between them or equals S.
// - n >= P + 2: M would round-trip to x with fewer digits than the shortest form: impossible.
// - n == P + 1, S not ending in 5: M would be a form of S's length closer to x than S, which
//   to_chars would have chosen instead: impossible.
// - n <= P: S is on the grid, and the nearest midpoints are half a grid step away, more than
//   5e-15 |x| for P <= 14, while |x - S| is at most half an ulp, under 2.3e-16 |x| for a normal
//   double. So the fast path takes P <= 14 and normal values only.
// - n == P + 1 ending in 5 goes the exact way.
void append_general(fmt::memory_buffer& out, double v, int digits) {
  const int precision = digits < 1 ? 1 : (digits > 17 ? 17 : digits);
  if (!std::isfinite(v) || precision > 14 ||
      (v != 0 && std::fabs(v) < std::numeric_limits<double>::min()))
    return append_exact(out, v, precision);
  if (v == 0) {
    out.append(std::string_view(std::signbit(v) ? "-0" : "0"));
    return;
  }
  char text[40];
  const std::to_chars_result r =
      std::to_chars(text, text + sizeof text, v, std::chars_format::scientific);
  // text: [-]d[.ddd]e(+|-)dd[d]
  const char* p = text;
  const bool negative = *p == '-';
  if (negative) ++p;
  char d[20];
  int n = 0;
  for (; *p != 'e'; ++p)
    if (*p != '.') d[n++] = *p;
  ++p;
  const bool exp_negative = *p == '-';
  int exponent = 0;
  for (++p; p < r.ptr; ++p) exponent = exponent * 10 + (*p - '0');
  if (exp_negative) exponent = -exponent;

  if (n > precision) {
    if (n == precision + 1 && d[precision] == '5') return append_exact(out, v, precision);
    const bool up = d[precision] >= '5';
    n = precision;
    if (up) {
      int i = n - 1;
      while (i >= 0 && d[i] == '9') d[i--] = '0';
      if (i >= 0) {
        ++d[i];
      } else {  // 9.99.. rounded up to 10.0..: one digit, one decade higher
        d[0] = '1';
        n = 1;
        ++exponent;
      }
    }
  }
  while (n > 1 && d[n - 1] == '0') --n;  // %g drops trailing zeros

  if (negative) out.push_back('-');
  if (exponent < -4 || exponent >= precision) {  // %g's scientific form
    out.push_back(d[0]);
    if (n > 1) {
      out.push_back('.');
      out.append(d + 1, d + n);
    }
    out.push_back('e');
    out.push_back(exponent < 0 ? '-' : '+');
    const int e = exponent < 0 ? -exponent : exponent;
    if (e >= 100) out.push_back(static_cast<char>('0' + e / 100));
    out.push_back(static_cast<char>('0' + e / 10 % 10));
    out.push_back(static_cast<char>('0' + e % 10));
  } else if (exponent < 0) {  // 0.000ddd
    out.append(std::string_view("0."));
    for (int i = exponent + 1; i < 0; ++i) out.push_back('0');
    out.append(d, d + n);
  } else if (n <= exponent + 1) {  // an integer: its digits and zeros up to the point
    out.append(d, d + n);
    for (int i = n; i <= exponent; ++i) out.push_back('0');
  } else {
    out.append(d, d + exponent + 1);
    out.push_back('.');
    out.append(d + exponent + 1, d + n);
  }
}

}  // namespace slicelab
