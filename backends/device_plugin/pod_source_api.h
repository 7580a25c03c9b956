// The PodSource of a node's plugin in a cluster: the pods bound to the node, read from the
// Kubernetes API, and the annotation that marks a pod's devices handed out.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "backends/device_plugin/pod_source.h"
#include "backends/k8s/api_client.h"

namespace slicelab::device_plugin {

// Written by mark_allocated (merge patch); a pod carrying it is not pending any more.
inline constexpr std::string_view kGpuAllocatedAnnotation = "slicelab.io/gpu-allocated";
// HAMi's bind protocol, honoured where it is cheap: a pod whose hami.io/bind-phase is
// "success" or "failed" is not pending; one "allocating" gets "success" when marked; the
// hami.io/bind-time (Unix seconds) is its bind time.
inline constexpr std::string_view kHamiBindPhase = "hami.io/bind-phase";
inline constexpr std::string_view kHamiBindTime = "hami.io/bind-time";

// The LIST is bounded: pages of kPodPageSize, at most kMaxPodPages of them (a node runs 110
// pods by default, a few hundred at most); pods beyond are not looked at.
inline constexpr int kPodPageSize = 250;
inline constexpr int kMaxPodPages = 8;

// One pod of a LIST (an item of a PodList) as a candidate for an Allocate of `device_count`
// devices of `resource` on `node`; nullopt when it is not one (not this node's, not Pending,
// being deleted, already marked allocated, or no container asks for exactly that many).
// `bind_time` gets the time it was bound as far as the object says (hami.io/bind-time, else
// metadata.creationTimestamp), in seconds. Never throws on a malformed pod: it is skipped.
std::optional<PendingPod> pending_pod_of(const nlohmann::json& pod, std::string_view node,
                                         std::string_view resource, int device_count,
                                         double* bind_time);

// `client` must outlive the source. Throws k8s::ApiError when the server cannot be read.
std::unique_ptr<PodSource> make_api_pod_source(k8s::ApiClient& client, std::string node_name);

}  // namespace slicelab::device_plugin
