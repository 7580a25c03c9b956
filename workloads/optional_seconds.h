// A time limit that may be absent (a pod's SLO): the interface of std::optional<double> in 8
// bytes instead of 16, absence kept as NaN, which no reader accepts as a time.
#pragma once

#include <cmath>
#include <limits>
#include <optional>
#include <ostream>

namespace slicelab {

class OptionalSeconds {
 public:
  OptionalSeconds() = default;
  OptionalSeconds(std::nullopt_t) {}    // NOLINT(google-explicit-constructor)
  OptionalSeconds(double s) : s_(s) {}  // NOLINT(google-explicit-constructor)
  OptionalSeconds(std::optional<double> s) : s_(s.value_or(kAbsent)) {}  // NOLINT

  bool has_value() const { return !std::isnan(s_); }
  explicit operator bool() const { return has_value(); }
  double operator*() const { return s_; }
  double value_or(double fallback) const { return has_value() ? s_ : fallback; }

  friend bool operator==(const OptionalSeconds& a, const OptionalSeconds& b) {
    return a.has_value() == b.has_value() && (!a.has_value() || a.s_ == b.s_);
  }
  friend bool operator==(const OptionalSeconds& a, double b) { return a.has_value() && a.s_ == b; }
  friend std::ostream& operator<<(std::ostream& os, const OptionalSeconds& s) {
    if (s.has_value()) return os << s.s_;
    return os << "(none)";
  }

 private:
  static constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();
  double s_ = kAbsent;
};

}  // namespace slicelab
