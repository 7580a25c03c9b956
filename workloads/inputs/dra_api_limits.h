// resource.k8s.io/v1's limits that the DRA readers enforce (types.go), in one place so that the
// tree reader (dra_objects.cc) and the event reader of ResourceSlices (dra_slice_events.cc) agree.
#pragma once

#include <cstddef>

namespace slicelab {

// ResourceSliceMaxAttributesAndCapacitiesPerDevice, DeviceRequestsMaxSize and
// DeviceConstraintsMaxSize.
inline constexpr size_t kDraMaxAttributesAndCapacities = 32;
inline constexpr size_t kDraMaxClaimListEntries = 32;
// DeviceAttributeMaxValueLength and DriverNameMaxLength: CEL's matches() runs on these strings,
// and its bound on time assumes them (sim/modes/dra/cel_regex.h).
inline constexpr size_t kDraMaxAttributeValueBytes = 64;
inline constexpr size_t kDraMaxDriverNameBytes = 63;

}  // namespace slicelab
