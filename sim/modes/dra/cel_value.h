// The values a DRA CEL selector computes with, and the device it reads them from: small,
// trivially copyable, pointing into the device's own storage so that evaluation never allocates.
#pragma once

#include <cstdint>
#include <string_view>

namespace slicelab {

enum class CelType : uint8_t {
  kMissing,  // an attribute or capacity the device does not have
  kError,    // a runtime error (CEL's "no such key", "no matching overload")
  kBool,
  kInt,
  kString,
  kQuantity,  // in thousandths of the unit (Quantity.MilliValue), exact to 9.2e15 units
  kVersion,   // semantic version major.minor.patch
};

// Why an evaluation failed: CEL reports these as runtime errors, and the structured allocator
// aborts the claim's allocation on them (docs/dra.md#cel).
enum class CelFault : uint8_t {
  kNone,
  kNoSuchKey,       // an attribute or capacity the device lacks
  kNoSuchOverload,  // an operator applied to values of types it does not take
  kNotBool,         // the selector's result is not a bool
  kRegexTooLong,    // matches() on a string longer than kMaxCelMatchInput
};

struct CelVersion {
  int64_t major = 0, minor = 0, patch = 0;
  friend auto operator<=>(const CelVersion&, const CelVersion&) = default;
};

struct CelValue {
  CelType type = CelType::kMissing;
  CelFault fault = CelFault::kNone;
  bool b = false;
  int64_t i = 0;  // kInt, kQuantity (milli)
  std::string_view s;
  CelVersion v;

  static CelValue boolean(bool x) {
    CelValue r;
    r.type = CelType::kBool;
    r.b = x;
    return r;
  }
  static CelValue integer(int64_t x) {
    CelValue r;
    r.type = CelType::kInt;
    r.i = x;
    return r;
  }
  static CelValue string(std::string_view x) {
    CelValue r;
    r.type = CelType::kString;
    r.s = x;
    return r;
  }
  static CelValue quantity_milli(int64_t x) {
    CelValue r;
    r.type = CelType::kQuantity;
    r.i = x;
    return r;
  }
  static CelValue version(CelVersion x) {
    CelValue r;
    r.type = CelType::kVersion;
    r.v = x;
    return r;
  }
  static CelValue error(CelFault f) {
    CelValue r;
    r.type = CelType::kError;
    r.fault = f;
    return r;
  }
};

// The device a selector is evaluated on. Lookups return kMissing for an absent key; the
// strings they return must live as long as the device.
class CelDevice {
 public:
  virtual ~CelDevice() = default;
  virtual std::string_view driver() const = 0;
  // `device.attributes[domain].name`: the slice's attribute "domain/name", or "name" when
  // `domain` is the device's driver (a driver's own attributes are written unqualified).
  virtual CelValue attribute(std::string_view domain, std::string_view name) const = 0;
  // `device.capacity[domain].name`, a kQuantity, by the same naming rule.
  virtual CelValue capacity(std::string_view domain, std::string_view name) const = 0;
  virtual bool allow_multiple_allocations() const = 0;
};

// Parses "1.2.3" (a leading 'v' and pre-release or build suffixes are refused, as the
// resource API's version attributes are plain semver 2.0 triples without them in practice).
bool parse_cel_version(std::string_view text, CelVersion& out);

}  // namespace slicelab
