#include "reports/general_number.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace slicelab {

namespace {

// Powers of ten a double holds exactly (10^22 is the last).
constexpr std::array<double, 23> kPow10 = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                           1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                           1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
constexpr std::array<uint64_t, 17> kPow10Int = {1ULL,
                                                10ULL,
                                                100ULL,
                                                1000ULL,
                                                10000ULL,
                                                100000ULL,
                                                1000000ULL,
                                                10000000ULL,
                                                100000000ULL,
                                                1000000000ULL,
                                                10000000000ULL,
                                                100000000000ULL,
                                                1000000000000ULL,
                                                10000000000000ULL,
                                                100000000000000ULL,
                                                1000000000000000ULL,
                                                10000000000000000ULL};
constexpr const char* kDigitPairs =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";
// The largest precision the fast path serves: its scaled value stays below 2^53, where a double's
// integer and fraction parts are exact.
constexpr int kFastDigits = 15;

// %g's fixed form for |v| in [1e-4, 10^precision), the form nearly every time, rate and ratio a
// result file holds takes. The value is scaled by an exact power of ten so that its `precision`
// significant digits are the integer part (one rounding, at most half an ulp), and rounded
// to the nearest integer; where the scaled value is a half, which the exact value may not be, it
// answers nullptr and std::to_chars decides (its exact arithmetic is what makes it slow: about a
// third of writing a million-pod pods.csv). Also nullptr for the scientific form, zero,
// infinities and NaN.
char* write_fixed(char* out, double v, int precision) {
  if (precision > kFastDigits) return nullptr;
  const double a = std::fabs(v);
  if (!(a >= 1e-4 && a < kPow10[static_cast<size_t>(precision)])) return nullptr;
  // The decimal exponent, estimated; an estimate one off at a power's inexact boundary shows
  // in the digit count below.
  int exponent = 0;
  if (a >= 1) {
    while (exponent + 1 < precision && a >= kPow10[static_cast<size_t>(exponent) + 1]) ++exponent;
  } else {
    exponent = -1;
    while (exponent > -4 && a < 1.0 / kPow10[static_cast<size_t>(-exponent)]) --exponent;
  }
  const double scaled = a * kPow10[static_cast<size_t>(precision - 1 - exponent)];
  // Truncation is the floor here (scaled is positive), and a conversion, not a libm call.
  const auto truncated = static_cast<uint64_t>(scaled);
  const double fraction = scaled - static_cast<double>(truncated);
  // Rounding is monotonic and every n + 0.5 below 2^52 is a double, so the product lands on the
  // same side of a half as the exact value, or on the half itself: only then is it undecided.
  if (fraction == 0.5) return nullptr;
  uint64_t digits = truncated + (fraction > 0.5 ? 1 : 0);
  const uint64_t lowest = kPow10Int[static_cast<size_t>(precision) - 1];
  const uint64_t limit = kPow10Int[static_cast<size_t>(precision)];
  if (digits < lowest) return nullptr;
  if (digits >= limit) {
    if (digits != limit) return nullptr;
    digits = lowest;  // rounding carried into a new digit: 9.9999999996 -> 10
    ++exponent;
  }
  if (exponent >= precision) return nullptr;  // %g switches to the scientific form

  // All `precision` digits, two at a time from the last (half the dependent divisions), then
  // the integer part, the point and the fraction without its trailing zeros. The copies are
  // 16 bytes whatever the length (kGeneralMaxChars leaves room for that).
  std::array<char, 32> text{};
  int i = precision;
  for (; i >= 2; i -= 2) {
    std::memcpy(text.data() + i - 2, kDigitPairs + 2 * (digits % 100), 2);
    digits /= 100;
  }
  if (i == 1) text[0] = static_cast<char>('0' + digits);
  const int integer = exponent >= 0 ? exponent + 1 : 0;
  int last = precision;
  while (last > integer && text[static_cast<size_t>(last) - 1] == '0') --last;
  if (v < 0) *out++ = '-';
  if (exponent < 0) {
    std::memcpy(out, "0.00000", 8);
    out += 1 - exponent;  // "0." and the zeros after the point
  } else {
    std::memcpy(out, text.data(), 16);
    out += integer;
    if (last == integer) return out;
    *out++ = '.';
  }
  std::memcpy(out, text.data() + integer, 16);
  return out + (last - integer);
}

}  // namespace

char* write_general(char* out, double v, int digits) {
  const int precision = digits < 1 ? 1 : (digits > 17 ? 17 : digits);
  if (char* end = write_fixed(out, v, precision)) return end;
  return std::to_chars(out, out + kGeneralMaxChars, v, std::chars_format::general, precision).ptr;
}

void append_general(fmt::memory_buffer& out, double v, int digits) {
  std::array<char, kGeneralMaxChars> text;  // NOLINT(*-member-init): written before it is read
  out.append(text.data(), write_general(text.data(), v, digits));
}

}  // namespace slicelab
