#include "sim/sharing/sharing_run.h"

#include <memory>

namespace slicelab {

std::unique_ptr<SharingRun> SharingMode::start_run(const RunSetup& /*setup*/) const {
  return std::make_unique<SharingRun>();
}

}  // namespace slicelab
