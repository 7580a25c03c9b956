// An immutable string shared by every pod that carries the same value (a class, a MIG profile):
// 8 bytes in a PodSpec instead of a 32-byte std::string, one heap copy per distinct value.
#pragma once

#include <fmt/format.h>

#include <ostream>
#include <string>
#include <string_view>

#include "workloads/shared_value.h"

namespace slicelab {

class SharedText {
 public:
  SharedText() = default;
  // Implicit, so that readers and tests assign strings as they did to a std::string field.
  SharedText(std::string text)  // NOLINT(google-explicit-constructor)
      : text_(text.empty() ? SharedValue<std::string>()
                           : SharedValue<std::string>(std::move(text))) {}
  SharedText(std::string_view text) : SharedText(std::string(text)) {}  // NOLINT
  SharedText(const char* text) : SharedText(std::string(text)) {}       // NOLINT

  std::string_view view() const { return text_ ? std::string_view(*text_) : std::string_view(); }
  operator std::string_view() const { return view(); }  // NOLINT(google-explicit-constructor)
  std::string str() const { return std::string(view()); }
  bool empty() const { return !text_; }

  friend bool operator==(const SharedText& a, const SharedText& b) { return a.view() == b.view(); }
  friend bool operator==(const SharedText& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const SharedText& a, const char* b) { return a.view() == b; }
  friend std::ostream& operator<<(std::ostream& os, const SharedText& t) { return os << t.view(); }

 private:
  SharedValue<std::string> text_;  // null = empty
};

}  // namespace slicelab

template <>
struct fmt::formatter<slicelab::SharedText> : fmt::formatter<std::string_view> {
  template <typename Context>
  auto format(const slicelab::SharedText& t, Context& ctx) const {
    return fmt::formatter<std::string_view>::format(t.view(), ctx);
  }
};
