// RFC 3339 timestamps ("2026-03-01T12:00:00Z", "2026-03-01T12:00:00.250+05:30"), parsed
// strictly, for traces whose times are dates rather than seconds (import csv, kubectl exports).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace slicelab {

// An instant: whole seconds since 1970-01-01T00:00:00Z and the nanoseconds after them, exact.
struct Rfc3339Time {
  int64_t seconds = 0;
  int32_t nanos = 0;  // 0..999,999,999

  // Seconds from `origin` to this instant (negative when this one is earlier); the whole
  // seconds are subtracted first, so a date in 2026 keeps its nanoseconds.
  double seconds_since(const Rfc3339Time& origin) const {
    return static_cast<double>(seconds - origin.seconds) +
           static_cast<double>(nanos - origin.nanos) * 1e-9;
  }
  friend bool operator==(const Rfc3339Time&, const Rfc3339Time&) = default;
};

// Parses RFC 3339's date-time: YYYY-MM-DD, 'T' (or 't', or a space, as RFC 3339 allows),
// hh:mm:ss, an optional fraction of up to 9 digits, and a zone: 'Z' (or 'z') or ±hh:mm. Refuses
// dates that do not exist (Feb 30, Feb 29 outside leap years), hour 24, second 60 (as Go and so
// Kubernetes do), a missing zone. On failure sets `error` to a sentence naming the problem.
std::optional<Rfc3339Time> parse_rfc3339(std::string_view text, std::string& error);

// The same, as seconds since the Unix epoch (fractions kept to about a microsecond for today's
// dates): what a kubectl export's times are compared in.
inline std::optional<double> parse_rfc3339_seconds(std::string_view text, std::string& error) {
  const std::optional<Rfc3339Time> t = parse_rfc3339(text, error);
  if (!t) return std::nullopt;
  return t->seconds_since(Rfc3339Time{});
}

}  // namespace slicelab
