#include "workloads/kube/kube_quantity.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <vector>

namespace slicelab {
namespace {

// Exact products of an 18-digit mantissa and the exponents a quantity can carry need more than
// 64 bits before the division brings them back.
__extension__ using Wide = unsigned __int128;
constexpr Wide kWideLimit = ~Wide{0} / 16;

struct Suffix {
  std::string_view text;
  int decimal_exponent;
  int binary_exponent;
  std::string_view meaning;
};

constexpr std::array<Suffix, 15> kSuffixes{{
    {"Ki", 0, 10, "2^10"},
    {"Mi", 0, 20, "2^20"},
    {"Gi", 0, 30, "2^30"},
    {"Ti", 0, 40, "2^40"},
    {"Pi", 0, 50, "2^50"},
    {"Ei", 0, 60, "2^60"},
    {"n", -9, 0, "10^-9"},
    {"u", -6, 0, "10^-6"},
    {"m", -3, 0, "10^-3"},
    {"k", 3, 0, "10^3"},
    {"M", 6, 0, "10^6"},
    {"G", 9, 0, "10^9"},
    {"T", 12, 0, "10^12"},
    {"P", 15, 0, "10^15"},
    {"E", 18, 0, "10^18"},
}};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Suffixes a mistyped one was probably meant as: the same letters in another case, or the
// same without a trailing "b"/"B" ("GB", "Mb", "KiB").
std::string suffix_suggestion(std::string_view bad) {
  std::string key = lower(bad);
  if (key.size() > 1 && key.back() == 'b') key.pop_back();
  std::vector<std::string> hits;
  for (const Suffix& s : kSuffixes) {
    const std::string l = lower(s.text);
    if (l == key || (key.size() == 1 && l.size() == 2 && l[0] == key[0] && l[1] == 'i'))
      hits.push_back(fmt::format("'{}' ({})", s.text, s.meaning));
  }
  if (hits.empty()) return {};
  std::string out = " (did you mean ";
  for (size_t i = 0; i < hits.size(); ++i) {
    if (i > 0) out += i + 1 == hits.size() ? " or " : ", ";
    out += hits[i];
  }
  return out + "?)";
}

bool parse_exponent(std::string_view text, int& exponent) {
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty() || text.size() > 3) return false;
  int v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  exponent = negative ? -v : v;
  return true;
}

// ceil(mantissa × 10^e10 × 2^e2) when it fits an int64.
std::optional<int64_t> ceil_scaled(uint64_t mantissa, int e10, int e2) {
  if (mantissa == 0) return 0;
  Wide num = mantissa;
  Wide den = 1;
  bool tiny = false;  // the denominator outgrew 128 bits: the value is below 1
  for (int i = 0; i < e10; ++i) {
    if (num > kWideLimit) return std::nullopt;
    num *= 10;
  }
  for (int i = 0; i < e2; ++i) {
    if (num > kWideLimit) return std::nullopt;
    num *= 2;
  }
  for (int i = 0; i < -e10 && !tiny; ++i) {
    if (den > kWideLimit) tiny = true;
    den *= 10;
  }
  for (int i = 0; i < -e2 && !tiny; ++i) {
    if (den > kWideLimit) tiny = true;
    den *= 2;
  }
  if (tiny) return 1;
  const Wide q = num / den + (num % den != 0 ? 1 : 0);
  if (q > static_cast<Wide>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  return static_cast<int64_t>(q);
}

}  // namespace

std::optional<int64_t> KubeQuantity::scaled_up(int decimals) const {
  return ceil_scaled(mantissa, decimal_exponent + decimals, binary_exponent);
}

std::optional<int64_t> KubeQuantity::binary_scaled_up(int binary_shift) const {
  return ceil_scaled(mantissa, decimal_exponent, binary_exponent - binary_shift);
}

double KubeQuantity::to_double() const {
  const double v = static_cast<double>(mantissa) * std::pow(10.0, decimal_exponent) *
                   std::ldexp(1.0, binary_exponent);
  return negative ? -v : v;
}

std::optional<KubeQuantity> parse_quantity(std::string_view text, std::string& error) {
  KubeQuantity q;
  size_t pos = 0;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    q.negative = text[pos] == '-';
    ++pos;
  }
  // Digits before and after the point; leading zeros and trailing fraction zeros carry no
  // significance, so "0.000500" still fits the 18 digits.
  std::string digits;
  int fraction_digits = 0;
  bool any_digit = false;
  bool point = false;
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (c == '.' && !point) {
      point = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    any_digit = true;
    if (point) ++fraction_digits;
    if (digits.empty() && c == '0') {
      continue;
    }
    digits.push_back(c);
  }
  if (!any_digit) {
    error = text.empty() ? "an empty quantity" : fmt::format("'{}' has no digits", text);
    return std::nullopt;
  }
  // Digits kept so far include fraction digits after the first significant one; the ones
  // dropped as leading zeros were all zeros, so the scale is only fraction_digits.
  while (!digits.empty() && fraction_digits > 0 && digits.back() == '0') {
    digits.pop_back();
    --fraction_digits;
  }
  if (digits.size() > 18) {
    error = fmt::format("'{}' has more than 18 significant digits", text);
    return std::nullopt;
  }
  for (const char c : digits) q.mantissa = q.mantissa * 10 + static_cast<uint64_t>(c - '0');
  q.decimal_exponent = -fraction_digits;

  const std::string_view suffix = text.substr(pos);
  if (!suffix.empty()) {
    int exponent = 0;
    if ((suffix[0] == 'e' || suffix[0] == 'E') && suffix.size() > 1 &&
        parse_exponent(suffix.substr(1), exponent)) {
      q.decimal_exponent += exponent;
    } else {
      const Suffix* found = nullptr;
      for (const Suffix& s : kSuffixes)
        if (s.text == suffix) found = &s;
      if (found == nullptr) {
        error = fmt::format("unknown unit '{}' in '{}'{}", suffix, text, suffix_suggestion(suffix));
        if (error.find("did you mean") == std::string::npos)
          error += " (units: Ki Mi Gi Ti Pi Ei, n u m k M G T P E, or an exponent such as e9)";
        return std::nullopt;
      }
      q.decimal_exponent += found->decimal_exponent;
      q.binary_exponent = found->binary_exponent;
    }
  }
  if (q.mantissa == 0) q.negative = false;
  return q;
}

std::optional<int64_t> parse_cpu_milli(std::string_view text, std::string& error) {
  const std::optional<KubeQuantity> q = parse_quantity(text, error);
  if (!q) return std::nullopt;
  if (q->negative) {
    error = fmt::format("'{}' is negative", text);
    return std::nullopt;
  }
  const std::optional<int64_t> milli = q->scaled_up(3);
  if (!milli) error = fmt::format("'{}' is too large a CPU quantity", text);
  return milli;
}

std::optional<int64_t> parse_memory_mib(std::string_view text, std::string& error) {
  const std::optional<KubeQuantity> q = parse_quantity(text, error);
  if (!q) return std::nullopt;
  if (q->negative) {
    error = fmt::format("'{}' is negative", text);
    return std::nullopt;
  }
  const std::optional<int64_t> mib = q->binary_scaled_up(20);
  if (!mib) error = fmt::format("'{}' is too large a memory quantity", text);
  return mib;
}

}  // namespace slicelab
