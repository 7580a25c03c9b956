// Pins down the strict RFC 3339 parser against instants computed by hand from the calendar:
// leap years, zone offsets, fractions, and the dates and times that do not exist.
#include "workloads/rfc3339.h"

#include <gtest/gtest.h>

#include <string>

namespace slicelab {
namespace {

Rfc3339Time instant(const std::string& text) {
  std::string error;
  const auto t = parse_rfc3339(text, error);
  EXPECT_TRUE(t.has_value()) << text << ": " << error;
  return t.value_or(Rfc3339Time{-1, -1});
}

std::string rfc3339_error(const std::string& text) {
  std::string error;
  EXPECT_FALSE(parse_rfc3339(text, error).has_value()) << text;
  return error;
}

// 2026-03-01T00:00:00Z: 56 years after 1970 with 14 leap days (1972..2024), then 31 + 28
// days of January and February: 20,513 days.
constexpr int64_t kMarch2026 = 20'513LL * 86'400;

TEST(Rfc3339, InstantsFromTheCalendar) {
  EXPECT_EQ(instant("1970-01-01T00:00:00Z").seconds, 0);
  EXPECT_EQ(instant("2026-03-01T00:00:00Z").seconds, kMarch2026);
  EXPECT_EQ(instant("2026-03-01T12:00:00Z").seconds, kMarch2026 + 43'200);
  EXPECT_EQ(instant("2026-02-28T23:59:59Z").seconds, kMarch2026 - 1);
  // 2000 is a leap year (divisible by 400): 10,957 days to 2000-01-01, then 31 + 29.
  EXPECT_EQ(instant("2000-03-01T00:00:00Z").seconds, (10'957LL + 60) * 86'400);
  EXPECT_EQ(instant("2000-02-29T00:00:00Z").seconds, (10'957LL + 59) * 86'400);
  EXPECT_EQ(instant("2024-02-29T00:00:00Z").seconds,
            instant("2024-03-01T00:00:00Z").seconds - 86'400);
  EXPECT_EQ(instant("1969-12-31T23:59:59Z").seconds, -1);
}

TEST(Rfc3339, OffsetsAreSubtracted) {
  // 12:00 at +05:30 is 06:30 UTC; 20:00 at -08:00 on Feb 28 is 04:00 UTC on Mar 1.
  EXPECT_EQ(instant("2026-03-01T12:00:00+05:30").seconds, kMarch2026 + 6 * 3600 + 1800);
  EXPECT_EQ(instant("2026-02-28T20:00:00-08:00").seconds, kMarch2026 + 4 * 3600);
  EXPECT_EQ(instant("2026-03-01T00:00:00+00:00"), instant("2026-03-01T00:00:00Z"));
  // RFC 3339 allows lower-case t and z, and a space between date and time.
  EXPECT_EQ(instant("2026-03-01t00:00:00z"), instant("2026-03-01 00:00:00Z"));
}

TEST(Rfc3339, FractionsAreExact) {
  EXPECT_EQ(instant("2026-03-01T00:00:00.5Z").nanos, 500'000'000);
  EXPECT_EQ(instant("2026-03-01T00:00:00.123456789Z").nanos, 123'456'789);
  EXPECT_EQ(instant("2026-03-01T00:00:00.000001Z").nanos, 1'000);
  const Rfc3339Time a = instant("2026-03-01T12:00:00.25Z");
  const Rfc3339Time b = instant("2026-03-01T12:00:01.75+00:00");
  EXPECT_DOUBLE_EQ(b.seconds_since(a), 1.5);
  EXPECT_DOUBLE_EQ(a.seconds_since(b), -1.5);
}

TEST(Rfc3339, DatesAndTimesThatDoNotExistAreRefused) {
  const std::string eg = "; e.g. 2026-03-01T12:00:00Z or 2026-03-01T12:00:00.5+02:00)";
  EXPECT_EQ(rfc3339_error("2026-02-30T00:00:00Z"),
            "'2026-02-30T00:00:00Z' is not an RFC 3339 time (2026-02 has no day 30" + eg);
  EXPECT_EQ(rfc3339_error("2023-02-29T00:00:00Z"),
            "'2023-02-29T00:00:00Z' is not an RFC 3339 time (2023-02 has no day 29" + eg);
  EXPECT_EQ(rfc3339_error("1900-02-29T00:00:00Z"),  // divisible by 100, not by 400
            "'1900-02-29T00:00:00Z' is not an RFC 3339 time (1900-02 has no day 29" + eg);
  EXPECT_EQ(rfc3339_error("2026-04-31T00:00:00Z"),
            "'2026-04-31T00:00:00Z' is not an RFC 3339 time (2026-04 has no day 31" + eg);
  EXPECT_EQ(rfc3339_error("2026-13-01T00:00:00Z"),
            "'2026-13-01T00:00:00Z' is not an RFC 3339 time (month 13 does not exist" + eg);
  EXPECT_EQ(rfc3339_error("2026-03-01T24:00:00Z"),
            "'2026-03-01T24:00:00Z' is not an RFC 3339 time (hour 24 is out of range 00..23" + eg);
  EXPECT_EQ(
      rfc3339_error("2026-03-01T12:60:00Z"),
      "'2026-03-01T12:60:00Z' is not an RFC 3339 time (minute 60 is out of range 00..59" + eg);
  EXPECT_EQ(
      rfc3339_error("2026-03-01T12:00:60Z"),
      "'2026-03-01T12:00:60Z' is not an RFC 3339 time (second 60 is out of range 00..59" + eg);
  EXPECT_EQ(rfc3339_error("2026-03-01T12:00:00"),
            "'2026-03-01T12:00:00' is not an RFC 3339 time (missing time zone: add Z for UTC or "
            "an offset such as +02:00" +
                eg);
}

TEST(Rfc3339, MalformedTextIsRefused) {
  for (const std::string bad :
       {"", "2026-03-01", "2026-3-01T00:00:00Z", "2026-03-01T0:00:00Z", "2026-03-01T00:00Z",
        "2026-03-01X00:00:00Z", "2026-03-01T00:00:00.Z", "2026-03-01T00:00:00.1234567890Z",
        "2026-03-01T00:00:00+0530", "2026-03-01T00:00:00+24:00", "2026-03-01T00:00:00ZZ",
        "2026-03-01T00:00:00 UTC", "1772366400", "-2026-03-01T00:00:00Z"}) {
    SCOPED_TRACE(bad);
    EXPECT_NE(rfc3339_error(bad), "");
  }
  EXPECT_NE(rfc3339_error("2026-03-01").find("a date without a time of day"), std::string::npos);
}

}  // namespace
}  // namespace slicelab
