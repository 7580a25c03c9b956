// Pins down append_general: the same bytes as fmt's "{:.<P>g}" (what the result files were written
// with before, so they stay byte-stable) for every precision, on random bit patterns, on decimal
// values people write, on the midpoints of the rounding grid, and at the edges of %g's two forms.
#include "reports/general_number.h"

#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace slicelab {
namespace {

std::string exact(double v, int digits) {
  return fmt::format("{:.{}g}", v, digits);
}

std::string fast(double v, int digits) {
  fmt::memory_buffer b;
  append_general(b, v, digits);
  return fmt::to_string(b);
}

// Counts disagreements (and reports the first few) so one failure does not flood the log.
void expect_same(const std::vector<double>& values, int digits) {
  int wrong = 0;
  for (const double v : values) {
    const std::string want = exact(v, digits);
    const std::string got = fast(v, digits);
    if (got != want && ++wrong <= 5)
      ADD_FAILURE() << "%." << digits << "g of " << exact(v, 17) << ": want " << want << ", got "
                    << got;
  }
  EXPECT_EQ(wrong, 0) << "of " << values.size() << " values at precision " << digits;
}

TEST(GeneralNumber, RandomBitPatternsAtEveryPrecision) {
  std::mt19937_64 rng(11);
  std::vector<double> values;
  while (values.size() < 200000) {
    const double v = std::bit_cast<double>(rng());
    if (std::isfinite(v)) values.push_back(v);
  }
  for (int digits = 1; digits <= 17; ++digits) expect_same(values, digits);
}

TEST(GeneralNumber, TimesAndRatiosAsTheSimulatorMakesThem) {
  std::mt19937_64 rng(12);
  std::lognormal_distribution<double> run_time(6, 2);
  std::uniform_int_distribution<int> scale(-12, 12);
  std::vector<double> values;
  for (int i = 0; i < 500000; ++i) {
    const double a = run_time(rng);
    values.push_back(a);
    values.push_back(a - run_time(rng));
    values.push_back(a / run_time(rng));
    // Decimals with few digits at many scales: short shortest forms, rounding carries.
    values.push_back(std::round(a * 1000) / 1000 * std::pow(10.0, scale(rng)));
  }
  expect_same(values, 9);
  expect_same(values, 6);
}

// The fixed form's fast path (|v| in [1e-4, 10^P), P up to 15) at every precision, across and
// beyond its range: random magnitudes, values a few ulps from every power of ten, and decimals
// of exactly P + 1 digits ending in 5 (the scaled value then sits at a half).
TEST(GeneralNumber, FixedFormAtEveryPrecisionAndAroundEveryPowerOfTen) {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> magnitude(-6.0, 18.0);
  std::vector<double> values;
  for (int i = 0; i < 100000; ++i) {
    const double v = std::pow(10.0, magnitude(rng));
    values.push_back(v);
    values.push_back(-v);
  }
  for (int e = -6; e <= 18; ++e) {
    double v = std::pow(10.0, e);
    for (int step = 0; step < 4; ++step) v = std::nextafter(v, 0.0);
    for (int step = 0; step < 9; ++step, v = std::nextafter(v, 1e300)) values.push_back(v);
  }
  std::uniform_int_distribution<uint64_t> digit(0, 9);
  for (int digits = 1; digits <= 16; ++digits)
    for (int k = 0; k < 3000; ++k) {
      std::string s = std::to_string(1 + digit(rng) % 9);
      for (int i = 1; i < digits; ++i) s += static_cast<char>('0' + digit(rng));
      s += "5e" + std::to_string(static_cast<int>(digit(rng) * 2) - digits - 5);
      double v = 0;
      std::from_chars(s.data(), s.data() + s.size(), v);
      values.push_back(v);
    }
  for (int digits = 1; digits <= 17; ++digits) expect_same(values, digits);
}

TEST(GeneralNumber, MidpointsOfTheGridAndTheEdgesOfBothForms) {
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                0.5,
                                1e-4,
                                9.99999e-5,
                                1e-5,
                                0.000099999,
                                1e8,
                                1e9,
                                999999999.5,
                                999999999.4,
                                9999999995,
                                0.99999999995,
                                9.5,
                                1.000000005,
                                1.0000000015,
                                2.5e-7,
                                123456789,
                                1234567890,
                                1e300,
                                -2.5e-300,
                                5e-324,
                                std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN()};
  // (P + 1)-digit numbers ending in 5 at many magnitudes, and their neighbours: where rounding
  // to P digits is decided by the binary value's last bits.
  for (int digits = 1; digits <= 16; ++digits) {
    std::mt19937_64 rng(static_cast<uint64_t>(digits));
    std::uniform_int_distribution<int64_t> mantissa(0, 999);
    for (int k = 0; k < 2000; ++k) {
      std::string s = "1.";
      for (int i = 1; i < digits; ++i) s += static_cast<char>('0' + mantissa(rng) % 10);
      s += "5e" + std::to_string(static_cast<int>(mantissa(rng) % 40) - 20);
      double v = 0;
      std::from_chars(s.data(), s.data() + s.size(), v);
      values.push_back(v);
      values.push_back(std::nextafter(v, 0.0));
      values.push_back(std::nextafter(v, 10.0));
    }
  }
  for (int digits = 1; digits <= 17; ++digits) expect_same(values, digits);
}

TEST(GeneralNumber, PrecisionOutsideOneToSeventeenIsClamped) {
  EXPECT_EQ(fast(3.14159, 0), exact(3.14159, 1));
  EXPECT_EQ(fast(0.1, 40), exact(0.1, 17));
}

}  // namespace
}  // namespace slicelab
