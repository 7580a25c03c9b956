#include "sim/sharing/sharing_config.h"

#include <stdexcept>

#include "sim/sharing/sharing_registry.h"

namespace slicelab {

std::unique_ptr<SharingMode> make_sharing_mode(const SharingConfig& config) {
  const SharingModeEntry* mode = find_sharing_mode(config.kind);
  if (!mode) throw std::invalid_argument("unknown sharing mode " + config.kind);
  return mode->make(config);
}

}  // namespace slicelab
