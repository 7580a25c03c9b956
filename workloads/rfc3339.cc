#include "workloads/rfc3339.h"

#include <fmt/format.h>

namespace slicelab {
namespace {

bool leap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int days_in_month(int64_t y, int m) {
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard Hinnant's
// days_from_civil).
int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// Reads exactly `n` digits at `pos`.
bool digits(std::string_view text, size_t& pos, size_t n, int& out) {
  if (pos + n > text.size()) return false;
  out = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = text[pos + i];
    if (c < '0' || c > '9') return false;
    out = out * 10 + (c - '0');
  }
  pos += n;
  return true;
}

bool expect(std::string_view text, size_t& pos, char c) {
  if (pos >= text.size() || text[pos] != c) return false;
  ++pos;
  return true;
}

}  // namespace

std::optional<Rfc3339Time> parse_rfc3339(std::string_view text, std::string& error) {
  const auto bad = [&](std::string_view why) {
    error = fmt::format(
        "'{}' is not an RFC 3339 time ({}; e.g. 2026-03-01T12:00:00Z or "
        "2026-03-01T12:00:00.5+02:00)",
        text, why);
    return std::nullopt;
  };
  size_t pos = 0;
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(text, pos, 4, year) || !expect(text, pos, '-') || !digits(text, pos, 2, month) ||
      !expect(text, pos, '-') || !digits(text, pos, 2, day))
    return bad("expected a date YYYY-MM-DD");
  if (month < 1 || month > 12) return bad(fmt::format("month {} does not exist", month));
  if (day < 1 || day > days_in_month(year, month))
    return bad(fmt::format("{:04}-{:02} has no day {}", year, month, day));
  if (pos == text.size()) return bad("a date without a time of day");
  if (text[pos] != 'T' && text[pos] != 't' && text[pos] != ' ')
    return bad("expected 'T' between the date and the time");
  ++pos;
  if (!digits(text, pos, 2, hour) || !expect(text, pos, ':') || !digits(text, pos, 2, minute) ||
      !expect(text, pos, ':') || !digits(text, pos, 2, second))
    return bad("expected a time hh:mm:ss");
  if (hour > 23) return bad(fmt::format("hour {} is out of range 00..23", hour));
  if (minute > 59) return bad(fmt::format("minute {} is out of range 00..59", minute));
  if (second > 59) return bad(fmt::format("second {} is out of range 00..59", second));
  int32_t nanos = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    size_t n = 0;
    for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos, ++n) {
      if (n == 9) return bad("more than 9 fraction digits");
      nanos = nanos * 10 + (text[pos] - '0');
    }
    if (n == 0) return bad("no digits after the decimal point");
    for (; n < 9; ++n) nanos *= 10;
  }
  if (pos == text.size())
    return bad("missing time zone: add Z for UTC or an offset such as +02:00");
  int offset_s = 0;
  if (text[pos] == 'Z' || text[pos] == 'z') {
    ++pos;
  } else if (text[pos] == '+' || text[pos] == '-') {
    const int sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int oh = 0, om = 0;
    if (!digits(text, pos, 2, oh) || !expect(text, pos, ':') || !digits(text, pos, 2, om))
      return bad("expected a zone offset ±hh:mm");
    if (oh > 23 || om > 59) return bad("the zone offset is out of range");
    offset_s = sign * (oh * 3600 + om * 60);
  } else {
    return bad("expected a time zone, Z or ±hh:mm");
  }
  if (pos != text.size()) return bad("text after the time zone");
  Rfc3339Time t;
  // Local time minus its offset is UTC: 12:00+05:30 is 06:30Z.
  t.seconds =
      days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset_s;
  t.nanos = nanos;
  return t;
}

}  // namespace slicelab
