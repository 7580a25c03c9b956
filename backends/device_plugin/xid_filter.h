// Which XID errors make a GPU unhealthy: NVIDIA's device plugin rule (application errors are
// skipped) with its DP_DISABLE_HEALTHCHECKS and DP_ENABLE_HEALTHCHECKS overrides.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace slicelab::device_plugin {

class XidFilter {
 public:
  // NVIDIA's defaults: the application errors 13, 31, 43, 45, 68 and 109 are skipped (the GPU
  // is still fine), every other XID counts.
  XidFilter();
  // `disable` and `enable` as the two variables hold them: "all" or "xids" (every XID), or a
  // comma-separated list of XIDs; malformed entries are ignored, as NVIDIA's plugin does. An
  // enabled XID wins over a disabled one (also over the application errors).
  static XidFilter parse(std::string_view disable, std::string_view enable);
  // parse() of $DP_DISABLE_HEALTHCHECKS and $DP_ENABLE_HEALTHCHECKS.
  static XidFilter from_environment();

  // Health checks are off entirely (DP_DISABLE_HEALTHCHECKS=all and not re-enabled with "all").
  bool all_disabled() const;
  bool skipped(uint64_t xid) const;
  // "13,31,43,45,68,109" or "all" (for the log line).
  std::string describe() const;

 private:
  // XID -> disabled; the key kAll (0, not an XID) stands for every XID.
  std::map<uint64_t, bool> disabled_;
};

}  // namespace slicelab::device_plugin
