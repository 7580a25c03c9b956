// Go durations ("1h30m", "300ms", "1.5d"), as time.ParseDuration reads them plus slicelab's "d":
// the YAML reader's durations and the CSV trace's, with "did you mean" errors.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace slicelab {

// A Go duration (time.ParseDuration) in seconds: "1h30m", "300ms", "1.5h", "2h45m30.5s",
// "-1s" is refused; units ns us µs ms s m h, plus d (24h) as slicelab's traces use it. A bare
// "0" is zero; any other bare number is refused here (callers that take seconds as a number
// check for it first).
std::optional<double> parse_go_duration(std::string_view text, std::string& error);

}  // namespace slicelab
