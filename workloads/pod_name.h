// A pod's name in 16 bytes (a std::string takes 32): up to 15 characters inline, which covers
// generated names ("frac-123456") and most traces' names, longer ones in their own heap copy.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace slicelab {

namespace pod_name_detail {
// The empty name: no characters, its length byte (the last) saying kInline - 0.
constexpr std::array<char, 16> empty_bytes() {
  std::array<char, 16> b{};
  b[15] = 15;
  return b;
}
}  // namespace pod_name_detail

class PodName {
 public:
  static constexpr size_t kInline = 15;
  static constexpr std::array<char, kInline + 1> kEmpty = pod_name_detail::empty_bytes();

  PodName() = default;
  // Implicit, so that readers and tests assign strings as they did to a std::string field.
  PodName(std::string_view text) { assign(text); }                       // NOLINT
  PodName(const std::string& text) : PodName(std::string_view(text)) {}  // NOLINT
  PodName(const char* text) : PodName(std::string_view(text)) {}         // NOLINT
  PodName(const PodName& other) { assign(other.view()); }
  // Moves copy the 16 bytes whole: std::exchange on the array compiled to overlapping partial
  // stores and loads that stalled (a tenth of generating a million pods).
  PodName(PodName&& other) noexcept {
    std::memcpy(bytes_.data(), other.bytes_.data(), bytes_.size());
    std::memcpy(other.bytes_.data(), kEmpty.data(), kEmpty.size());
  }
  PodName& operator=(const PodName& other) {
    if (this != &other) {
      PodName copy(other);
      std::swap(bytes_, copy.bytes_);
    }
    return *this;
  }
  PodName& operator=(PodName&& other) noexcept {
    if (this != &other) {
      free_heap();
      std::memcpy(bytes_.data(), other.bytes_.data(), bytes_.size());
      std::memcpy(other.bytes_.data(), kEmpty.data(), kEmpty.size());
    }
    return *this;
  }
  // Replaces the text in place (a generator's million names: no temporary name, a fifth
  // fewer of generate_pods' samples). `text` may be this name's own.
  void set(std::string_view text) {
    if (text.size() <= kInline && heap() == nullptr) {
      std::memmove(bytes_.data(), text.data(), text.size());
      bytes_[kInline] = static_cast<char>(kInline - text.size());
      return;
    }
    PodName fresh(text);
    *this = std::move(fresh);
  }
  ~PodName() { free_heap(); }

  std::string_view view() const {
    if (const std::string* h = heap()) return *h;
    return {bytes_.data(), kInline - bytes_[kInline]};
  }
  operator std::string_view() const { return view(); }  // NOLINT(google-explicit-constructor)
  std::string str() const { return std::string(view()); }
  size_t size() const { return view().size(); }
  bool empty() const { return view().empty(); }

  friend bool operator==(const PodName& a, const PodName& b) { return a.view() == b.view(); }
  friend bool operator==(const PodName& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const PodName& a, const char* b) { return a.view() == b; }
  friend bool operator==(const PodName& a, const std::string& b) { return a.view() == b; }
  friend auto operator<=>(const PodName& a, const PodName& b) { return a.view() <=> b.view(); }
  friend std::ostream& operator<<(std::ostream& os, const PodName& n) { return os << n.view(); }

 private:
  // bytes_[kInline] holds kInline - length for an inline name (0..kInline), kHeap for a name
  // kept on the heap, whose std::string* is then copied into the first bytes.
  static constexpr char kHeap = static_cast<char>(0xff);

  void assign(std::string_view text) {
    if (text.size() <= kInline) {
      std::copy(text.begin(), text.end(), bytes_.begin());
      bytes_[kInline] = static_cast<char>(kInline - text.size());
      return;
    }
    const std::string* h = std::make_unique<std::string>(text).release();
    std::memcpy(bytes_.data(), static_cast<const void*>(&h), sizeof h);
    bytes_[kInline] = kHeap;
  }
  const std::string* heap() const {
    if (bytes_[kInline] != kHeap) return nullptr;
    const std::string* h = nullptr;
    std::memcpy(static_cast<void*>(&h), bytes_.data(), sizeof h);
    return h;
  }
  void free_heap() {
    std::unique_ptr<const std::string> owned(heap());
    std::memcpy(bytes_.data(), kEmpty.data(), kEmpty.size());
  }

  std::array<char, kInline + 1> bytes_ = kEmpty;
};
static_assert(sizeof(PodName) == 16);

}  // namespace slicelab

template <>
struct fmt::formatter<slicelab::PodName> : fmt::formatter<std::string_view> {
  template <typename Context>
  auto format(const slicelab::PodName& n, Context& ctx) const {
    return fmt::formatter<std::string_view>::format(n.view(), ctx);
  }
};
