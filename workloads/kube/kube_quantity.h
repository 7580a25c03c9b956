// Kubernetes resource quantities ("4", "500m", "10Gi", "10G", "10e9"), parsed exactly as
// Kubernetes reads them, with "did you mean" errors (Go durations: workloads/go_duration.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace slicelab {

// A parsed quantity: mantissa × 10^decimal_exponent × 2^binary_exponent, exact (no floating
// point), as apimachinery's resource.Quantity holds it.
struct KubeQuantity {
  uint64_t mantissa = 0;  // significant digits, at most 18
  int decimal_exponent = 0;
  int binary_exponent = 0;  // 10, 20, ... 60 for Ki .. Ei
  bool negative = false;

  // The value in units of 10^-decimals (3: thousandths, as Quantity.MilliValue), rounded up as
  // Kubernetes rounds; nullopt when it does not fit an int64.
  std::optional<int64_t> scaled_up(int decimals) const;
  // The value in units of 2^binary_shift (20: MiB), rounded up; nullopt when it does not fit.
  std::optional<int64_t> binary_scaled_up(int binary_shift) const;
  double to_double() const;
  bool is_zero() const { return mantissa == 0; }
};

// Parses `text` with apimachinery's grammar: an optional sign, digits with an optional
// fraction, then one suffix: a binary SI suffix (Ki Mi Gi Ti Pi Ei), a decimal SI suffix (n u m
// k M G T P E, or none), or a decimal exponent (e3, E-2). On failure returns nullopt and sets
// `error` to a sentence naming the problem: "unknown unit 'GB' (did you mean 'G' (10^9) or
// 'Gi' (2^30)?)", "no digits", "more than 18 significant digits".
std::optional<KubeQuantity> parse_quantity(std::string_view text, std::string& error);

// CPU as Kubernetes reads it, in thousandths of a core: "4" → 4000, "500m" → 500, "0.5" →
// 500, "1.0005" → 1001 (rounded up). Negative or too large values are errors.
std::optional<int64_t> parse_cpu_milli(std::string_view text, std::string& error);

// Memory as Kubernetes reads it, in bytes, rounded up to whole MiB: "10Gi" → 10240,
// "10G" → 9537, "10240Mi" → 10240, "10e9" → 9537, a bare number is bytes ("1048576" → 1).
std::optional<int64_t> parse_memory_mib(std::string_view text, std::string& error);

}  // namespace slicelab
