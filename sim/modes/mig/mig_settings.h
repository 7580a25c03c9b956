// What a policy's `sharing: {mode: mig, ...}` says: a static layout from a mig-parted
// configuration, and/or dynamic MIG that re-partitions GPUs on demand at a charged time.
#pragma once

#include <string>
#include <vector>

#include "sim/modes/mig/mig_parted.h"

namespace slicelab {

struct MigSettings {
  std::string layout;                // mig-parted configuration name; empty: none given
  std::vector<MigDeviceRule> rules;  // that configuration's entries, in file order
  bool dynamic = false;
  // Drain, destroy and recreate GPU instances: the GPU takes no new pods for this long.
  static constexpr double kDefaultReconfigureS = 60.0;
  double reconfigure_s = kDefaultReconfigureS;
};

}  // namespace slicelab
