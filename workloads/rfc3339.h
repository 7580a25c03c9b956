// RFC 3339 timestamps ("2026-11-24T19:50:50Z", "2026-11-24T19:50:50.123+01:00") as Kubernetes
// writes them (metav1.Time), read into seconds since the Unix epoch without the C library's zones.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace slicelab {

// Seconds since 1970-01-01T00:00:00Z, fractions kept. A date and a time joined by 'T' (or 't',
// or a space), optional fractional seconds, then 'Z' or an offset "+HH:MM"; leap seconds (":60")
// count as the next second. On failure returns nullopt and sets `error` to a sentence naming
// what is wrong ("month 13 is out of range", "no time zone: end with Z or +HH:MM").
std::optional<double> parse_rfc3339(std::string_view text, std::string& error);

}  // namespace slicelab
