// What the kubelet's device manager guarantees about the requests it sends (k8s.io/kubernetes
// pkg/kubelet/cm/devicemanager, the v1beta1 API's comments), checked before a resource sees one:
// a request that breaks them did not come from a kubelet and is refused, never acted on.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backends/device_plugin/resource_plugin.h"

namespace slicelab::device_plugin {

// What a request may hold; more is refused before anything is copied. A kubelet asks for one
// container at a time, with IDs of 63 characters at most (the API's own limit), so these leave
// ample room while bounding what a hostile client can make the plugin do.
inline constexpr int kMaxContainerRequests = 1024;
inline constexpr int kMaxDeviceIdsPerRequest = 4096;  // over all containers of one request
inline constexpr std::size_t kMaxDeviceIdBytes = 256;

// Allocate, one list of device IDs per container. The kubelet allocates from a set of the
// healthy devices the plugin last listed, at least one per call (devicesToAllocate,
// allocateContainerResources): so every list is non-empty, no ID appears twice in the request
// (a device goes to one container), and every ID is one `devices` holds, healthy now. nullopt
// when the request may go ahead; else what is wrong, naming the container request and the ID.
std::optional<std::string> allocate_request_problem(
    std::span<const std::vector<std::string>> containers,
    std::span<const AdvertisedDevice> devices);

// GetPreferredAllocation for one container. The kubelet offers a set of devices (available,
// which holds must_include: the devices already chosen) and asks for allocation_size of them in
// all (callGetPreferredAllocationIfAvailable): so available and must_include hold each ID once,
// every available ID is one `devices` holds (a device that turned unhealthy since the kubelet's
// list is the kubelet's to drop), must_include is a subset of available, and
// max(1, |must_include|) <= allocation_size <= |available|.
std::optional<std::string> preferred_request_problem(const PreferredRequest& request,
                                                     std::span<const AdvertisedDevice> devices);

// The resource's answer as the API promises it to the kubelet: must_include first, then the
// answer's IDs that are available and not yet listed, in its order, at most request.size in
// all. Never an ID that is not available, never one twice. `request` must have passed
// preferred_request_problem.
std::vector<std::string> preferred_answer(std::span<const std::string> answer,
                                          const PreferredRequest& request);

}  // namespace slicelab::device_plugin
