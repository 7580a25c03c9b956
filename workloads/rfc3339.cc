#include "workloads/rfc3339.h"

#include <fmt/format.h>

#include <cstdint>

namespace slicelab {
namespace {

// Days from 1970-01-01 to the given civil date (Howard Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool leap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int days_in_month(int64_t y, int64_t m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

// Reads exactly `n` digits at `at`.
bool digits(std::string_view s, size_t& at, size_t n, int64_t& out) {
  if (at + n > s.size()) return false;
  out = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = s[at + i];
    if (c < '0' || c > '9') return false;
    out = out * 10 + (c - '0');
  }
  at += n;
  return true;
}

bool expect(std::string_view s, size_t& at, char c) {
  if (at >= s.size() || s[at] != c) return false;
  ++at;
  return true;
}

}  // namespace

std::optional<double> parse_rfc3339(std::string_view s, std::string& error) {
  const auto fail = [&](std::string what) -> std::optional<double> {
    error = std::move(what);
    return std::nullopt;
  };
  constexpr const char* kShape = "expected an RFC 3339 time such as 2026-11-24T19:50:50Z";
  size_t at = 0;
  int64_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(s, at, 4, year) || !expect(s, at, '-') || !digits(s, at, 2, month) ||
      !expect(s, at, '-') || !digits(s, at, 2, day))
    return fail(kShape);
  if (at >= s.size() || (s[at] != 'T' && s[at] != 't' && s[at] != ' '))
    return fail(fmt::format("{} (a date, 'T', then a time)", kShape));
  ++at;
  if (!digits(s, at, 2, hour) || !expect(s, at, ':') || !digits(s, at, 2, minute) ||
      !expect(s, at, ':') || !digits(s, at, 2, second))
    return fail(kShape);
  if (month < 1 || month > 12) return fail(fmt::format("month {} is out of range", month));
  if (day < 1 || day > days_in_month(year, month))
    return fail(fmt::format("day {} is out of range for {:04}-{:02}", day, year, month));
  if (hour > 23) return fail(fmt::format("hour {} is out of range", hour));
  if (minute > 59) return fail(fmt::format("minute {} is out of range", minute));
  if (second > 60) return fail(fmt::format("second {} is out of range", second));
  double fraction = 0;
  if (at < s.size() && s[at] == '.') {
    ++at;
    double scale = 0.1;
    const size_t begin = at;
    while (at < s.size() && s[at] >= '0' && s[at] <= '9') {
      fraction += scale * (s[at] - '0');
      scale /= 10;
      ++at;
    }
    if (at == begin) return fail("no digits after the decimal point of the seconds");
  }
  if (at >= s.size()) return fail("no time zone: end with Z or +HH:MM");
  int64_t offset_s = 0;
  if (s[at] == 'Z' || s[at] == 'z') {
    ++at;
  } else if (s[at] == '+' || s[at] == '-') {
    const int64_t sign = s[at] == '-' ? -1 : 1;
    ++at;
    int64_t oh = 0, om = 0;
    if (!digits(s, at, 2, oh) || !expect(s, at, ':') || !digits(s, at, 2, om) || oh > 23 || om > 59)
      return fail("the time zone offset must be +HH:MM or -HH:MM");
    offset_s = sign * (oh * 3600 + om * 60);
  } else {
    return fail(fmt::format("unexpected '{}' where the time zone (Z or +HH:MM) belongs", s[at]));
  }
  if (at != s.size())
    return fail(fmt::format("unexpected text '{}' after the time zone", s.substr(at)));
  const int64_t whole =
      days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset_s;
  return static_cast<double>(whole) + fraction;
}

}  // namespace slicelab
