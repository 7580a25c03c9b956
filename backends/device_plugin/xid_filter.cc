#include "backends/device_plugin/xid_filter.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

namespace slicelab::device_plugin {
namespace {

constexpr uint64_t kAll = 0;
// https://docs.nvidia.com/deploy/xid-errors/: errors of the application, not of the GPU.
constexpr uint64_t kApplicationXids[] = {13, 31, 43, 45, 68, 109};

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool equals_lower(std::string_view s, std::string_view lower) {
  return s.size() == lower.size() &&
         std::equal(s.begin(), s.end(), lower.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         });
}

// NVIDIA's newHealthCheckXIDs: "all"/"xids" anywhere means every XID (and ends the list).
std::map<uint64_t, bool> listed(std::string_view list) {
  std::map<uint64_t, bool> out;
  while (true) {
    const size_t comma = list.find(',');
    const std::string_view item = trimmed(list.substr(0, comma));
    if (equals_lower(item, "all") || equals_lower(item, "xids")) return {{kAll, true}};
    uint64_t xid = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), xid);
    if (!item.empty() && ec == std::errc() && end == item.data() + item.size()) out[xid] = true;
    if (comma == std::string_view::npos) return out;
    list.remove_prefix(comma + 1);
  }
}

}  // namespace

XidFilter::XidFilter() {
  for (const uint64_t x : kApplicationXids) disabled_[x] = true;
}

XidFilter XidFilter::parse(std::string_view disable, std::string_view enable) {
  XidFilter f;
  f.disabled_ = listed(disable);
  for (const uint64_t x : kApplicationXids) f.disabled_[x] = true;
  for (const auto& [x, on] : listed(enable)) f.disabled_[x] = false;
  return f;
}

XidFilter XidFilter::from_environment() {
  const char* disable = std::getenv("DP_DISABLE_HEALTHCHECKS");
  const char* enable = std::getenv("DP_ENABLE_HEALTHCHECKS");
  return parse(disable ? disable : "", enable ? enable : "");
}

bool XidFilter::all_disabled() const {
  const auto it = disabled_.find(kAll);
  return it != disabled_.end() && it->second;
}

bool XidFilter::skipped(uint64_t xid) const {
  // Enabled "all" overrides every listed XID, as in NVIDIA's IsDisabled.
  if (const auto all = disabled_.find(kAll); all != disabled_.end() && !all->second) return false;
  if (const auto it = disabled_.find(xid); it != disabled_.end()) return it->second;
  return all_disabled();
}

std::string XidFilter::describe() const {
  if (all_disabled()) return "all";
  if (const auto all = disabled_.find(kAll); all != disabled_.end()) return "none";
  std::string out;
  for (const auto& [x, off] : disabled_) {
    if (!off || x == kAll) continue;
    if (!out.empty()) out += ',';
    out += std::to_string(x);
  }
  return out.empty() ? "none" : out;
}

}  // namespace slicelab::device_plugin
