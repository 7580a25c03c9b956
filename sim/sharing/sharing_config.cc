#include "sim/sharing/sharing_config.h"

#include <stdexcept>

#include "sim/sharing/device_plugin_sharing.h"
#include "sim/sharing/sharing_registry.h"

namespace slicelab {

std::unique_ptr<SharingMode> make_sharing_mode(const SharingConfig& config) {
  const SharingModeEntry* mode = find_sharing_mode(config.kind);
  if (!mode) throw std::invalid_argument("unknown sharing mode " + config.kind);
  if (config.device_plugin)
    return std::make_unique<DevicePluginSharing>(mode->make(config), config.device_plugin);
  return mode->make(config);
}

}  // namespace slicelab
