#include "backends/device_plugin/request_validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace slicelab::device_plugin {
namespace {

// An ID as a message shows it: whole when short, else its start and length (IDs may be up to
// kMaxDeviceIdBytes of anything).
std::string quoted_id(std::string_view id) {
  constexpr std::size_t kShown = 80;
  std::string out;
  for (const char c : id.substr(0, kShown)) {
    const auto u = static_cast<unsigned char>(c);
    out += u >= 0x20 && u < 0x7f ? std::string(1, c) : fmt::format("\\x{:02x}", u);
  }
  if (id.size() > kShown) out += fmt::format("... ({} bytes)", id.size());
  return "'" + out + "'";
}

// The resource's devices by ID: whether each is healthy.
std::unordered_map<std::string_view, bool> by_id(std::span<const AdvertisedDevice> devices) {
  std::unordered_map<std::string_view, bool> out;
  out.reserve(devices.size());
  for (const AdvertisedDevice& d : devices) out.emplace(d.id, d.healthy);
  return out;
}

}  // namespace

std::optional<std::string> allocate_request_problem(
    std::span<const std::vector<std::string>> containers,
    std::span<const AdvertisedDevice> devices) {
  if (containers.empty()) return "Allocate: no container request; the kubelet sends one";
  const auto known = by_id(devices);
  // ID -> the container request (1-based) that asked for it first.
  std::unordered_map<std::string_view, std::size_t> asked;
  for (std::size_t c = 0; c < containers.size(); ++c) {
    const std::size_t n = c + 1;
    if (containers[c].empty())
      return fmt::format(
          "Allocate: container request {} asks for no device; the kubelet asks for at least one",
          n);
    for (const std::string& id : containers[c]) {
      const auto [at, fresh] = asked.emplace(id, n);
      if (!fresh)
        return at->second == n
                   ? fmt::format(
                         "Allocate: container request {} asks for device {} twice; the kubelet "
                         "asks for each device once",
                         n, quoted_id(id))
                   : fmt::format(
                         "Allocate: device {} is asked for by container requests {} and {}; a "
                         "device goes to one container",
                         quoted_id(id), at->second, n);
      const auto device = known.find(id);
      if (device == known.end())
        return fmt::format(
            "Allocate: container request {} asks for unknown device {}; the plugin advertises "
            "no such device",
            n, quoted_id(id));
      if (!device->second)
        return fmt::format(
            "Allocate: container request {} asks for device {}, which is unhealthy; the kubelet "
            "allocates only healthy devices",
            n, quoted_id(id));
    }
  }
  return std::nullopt;
}

std::optional<std::string> preferred_request_problem(const PreferredRequest& request,
                                                     std::span<const AdvertisedDevice> devices) {
  const auto known = by_id(devices);
  std::unordered_set<std::string_view> available;
  available.reserve(request.available.size());
  for (const std::string& id : request.available) {
    if (!available.insert(id).second)
      return fmt::format(
          "GetPreferredAllocation: available_deviceIDs holds {} twice; the kubelet offers a set",
          quoted_id(id));
    if (!known.contains(id))
      return fmt::format(
          "GetPreferredAllocation: available_deviceIDs holds unknown device {}; the plugin "
          "advertises no such device",
          quoted_id(id));
  }
  std::unordered_set<std::string_view> included;
  for (const std::string& id : request.must_include) {
    if (!included.insert(id).second)
      return fmt::format(
          "GetPreferredAllocation: must_include_deviceIDs holds {} twice; the kubelet sends a set",
          quoted_id(id));
    if (!available.contains(id))
      return fmt::format(
          "GetPreferredAllocation: must_include_deviceIDs holds {}, which is not among "
          "available_deviceIDs; the kubelet offers what it must include",
          quoted_id(id));
  }
  const std::size_t low = std::max<std::size_t>(1, request.must_include.size());
  if (request.size < 0 || static_cast<std::size_t>(request.size) < low ||
      static_cast<std::size_t>(request.size) > request.available.size())
    return fmt::format(
        "GetPreferredAllocation: allocation_size {} is not within {}..{} (at least 1 and the {} "
        "device(s) it must include, at most the {} available)",
        request.size, low, request.available.size(), request.must_include.size(),
        request.available.size());
  return std::nullopt;
}

std::vector<std::string> preferred_answer(std::span<const std::string> answer,
                                          const PreferredRequest& request) {
  const std::unordered_set<std::string_view> available(request.available.begin(),
                                                       request.available.end());
  const auto size = static_cast<std::size_t>(std::max(0, request.size));
  std::vector<std::string> out;
  std::unordered_set<std::string_view> listed;
  const auto add = [&](const std::string& id) {
    if (out.size() < size && available.contains(id) && listed.insert(id).second) out.push_back(id);
  };
  for (const std::string& id : request.must_include) add(id);
  for (const std::string& id : answer) add(id);
  return out;
}

}  // namespace slicelab::device_plugin
