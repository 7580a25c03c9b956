#include "sim/sharing/device_plugin_sharing.h"

#include <fmt/format.h>

#include "sim/sharing/sharing_run.h"

namespace slicelab {

std::string DevicePluginSharing::describe() const {
  const DevicePluginSettings& s = *settings_;
  std::string out = fmt::format("{}; device plugin config {}", inner_->describe(), s.source);
  if (s.replicas == 0) return out + " (no sharing)";
  out += fmt::format(" ({}: {} x{}", s.strategy, s.resource, s.replicas);
  if (s.advertised != s.resource) out += fmt::format(", advertised as {}", s.advertised);
  if (s.fail_requests_greater_than_one) out += ", failRequestsGreaterThanOne";
  return out + ")";
}

std::unique_ptr<SharingRun> DevicePluginSharing::start_run(const RunSetup& setup) const {
  return inner_->start_run(setup);
}

}  // namespace slicelab
