#include "workloads/go_duration.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

namespace slicelab {
namespace {

std::string lower_ascii(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::optional<double> parse_go_duration(std::string_view text, std::string& error) {
  const std::string_view whole = text;
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  if (!text.empty() && text[0] == '-') {
    error = fmt::format("'{}' is negative", whole);
    return std::nullopt;
  }
  if (text == "0") return 0.0;
  if (text.empty()) {
    error = "an empty duration";
    return std::nullopt;
  }
  struct Unit {
    std::string_view text;
    double seconds;
  };
  static constexpr std::array<Unit, 9> kUnits{{{"ns", 1e-9},
                                               {"us", 1e-6},
                                               {"\xc2\xb5s", 1e-6},
                                               {"\xce\xbcs", 1e-6},
                                               {"ms", 1e-3},
                                               {"s", 1.0},
                                               {"m", 60.0},
                                               {"h", 3600.0},
                                               {"d", 86400.0}}};
  double total = 0;
  while (!text.empty()) {
    size_t n = 0;
    bool digit = false;
    bool point = false;
    while (n < text.size() && ((text[n] >= '0' && text[n] <= '9') || (text[n] == '.' && !point))) {
      if (text[n] == '.')
        point = true;
      else
        digit = true;
      ++n;
    }
    if (!digit) {
      error = fmt::format(
          "'{}' is not a duration (expected a number and a unit, e.g. 1h30m, "
          "90s, 300ms)",
          whole);
      return std::nullopt;
    }
    const std::string number(text.substr(0, n));
    text.remove_prefix(n);
    size_t u = 0;
    while (u < text.size() && !(text[u] >= '0' && text[u] <= '9') && text[u] != '.') ++u;
    const std::string_view unit = text.substr(0, u);
    text.remove_prefix(u);
    const Unit* found = nullptr;
    for (const Unit& k : kUnits)
      if (k.text == unit) found = &k;
    if (found == nullptr) {
      const std::string l = lower_ascii(unit);
      std::string hint;
      if (unit.empty())
        hint = fmt::format(" (missing unit after {}: ns, us, ms, s, m, h or d)", number);
      else if (l == "sec" || l == "secs" || l == "second" || l == "seconds")
        hint = " (did you mean 's'?)";
      else if (l == "min" || l == "mins" || l == "minute" || l == "minutes")
        hint = " (did you mean 'm'?)";
      else if (l == "hr" || l == "hrs" || l == "hour" || l == "hours" || unit == "H")
        hint = " (did you mean 'h'?)";
      else if (l == "day" || l == "days" || unit == "D")
        hint = " (did you mean 'd'?)";
      else if (unit == "M")
        hint = " (did you mean 'm' (minutes)?)";
      else
        hint = " (units: ns, us, ms, s, m, h, d)";
      error = fmt::format("unknown unit '{}' in duration '{}'{}", unit, whole, hint);
      return std::nullopt;
    }
    total += std::strtod(number.c_str(), nullptr) * found->seconds;
  }
  if (!std::isfinite(total)) {
    error = fmt::format("'{}' is too long a duration", whole);
    return std::nullopt;
  }
  return total;
}

}  // namespace slicelab
