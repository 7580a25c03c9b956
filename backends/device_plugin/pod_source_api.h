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

// Written by mark_allocated (merge patch): how many of the pod's containers that ask for the
// resource have their devices (the kubelet allocates one container at a time, init containers
// first, in the pod's order); "true" or a count reaching them all: the pod is not pending.
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

// A pod of a LIST as the next Allocate's pod.
struct PodCandidate {
  PendingPod pod;
  // When it was bound as far as the object says: hami.io/bind-time, else
  // metadata.creationTimestamp (seconds since the epoch).
  double bind_time = 0;
  int containers_done = 0;       // containers already allocated (kGpuAllocatedAnnotation)
  int gpu_containers = 0;        // containers asking for the resource
  bool hami_allocating = false;  // hami.io/bind-phase was "allocating"
};

// One pod of a LIST (an item of a PodList) as a candidate for an Allocate of `device_count`
// devices of `resource` on `node`: its next container to allocate asks for exactly that many.
// nullopt when it is not one (not this node's, not Pending, being deleted, all its containers
// allocated, its next one asking for another count). The extender's assignment is used when
// it is this node's, names `device_count` GPUs and the pod has one such container (the
// annotation is per pod); else the container's own requests give the caps. Never throws on a
// malformed pod: it is skipped.
std::optional<PodCandidate> pod_candidate_of(const nlohmann::json& pod, std::string_view node,
                                             std::string_view resource, int device_count);

// `client` must outlive the source. Throws k8s::ApiError when the server cannot be read.
std::unique_ptr<PodSource> make_api_pod_source(k8s::ApiClient& client, std::string node_name);

}  // namespace slicelab::device_plugin
