// The DRA objects of resource.k8s.io/v1 (DeviceClass, ResourceSlice, ResourceClaim,
// ResourceClaimTemplate, pods' spec.resourceClaims) in memory: the reader fills it, the allocator
// reads it.
#pragma once

// Field names follow the Go types of k8s.io/api/resource/v1 (types.go) in snake_case; a comment
// gives the JSON path where the name alone would be ambiguous. Only the fields slicelab models are
// here: the reader rejects any other field with file:line:column rather than ignoring it.
// It lives in workloads/ (not sim/modes/dra/) because the reader (workloads/dra_*) fills it and
// workloads/ may not include sim/ (tests/layering); sim/modes/dra/ implements the selector
// evaluator and the allocator on top of it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab {

// Where an object or field was read, for errors that point at the input.
struct DraSourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

// A resource.Quantity: `value` is Quantity.Value() (integer units, rounded up as apimachinery
// rounds: "80Gi" -> 85899345920, "500m" -> 1); `text` is the quantity as written, kept for output.
struct DraQuantity {
  int64_t value = 0;
  std::string text;
};

// A device attribute (DeviceAttribute): exactly one of string, int, bool, version is set in the
// API; `type` says which. Version values are semantic versions ("12.9.0") kept as text.
enum class DraAttributeType : uint8_t { String, Int, Bool, Version };

struct DraAttribute {
  std::string name;       // the map key as written: "productName" or "gpu.nvidia.com/productName"
  std::string qualified;  // fully qualified: the slice's driver prefixed when `name` has no domain
  DraAttributeType type = DraAttributeType::String;
  std::string string_value;  // String and Version
  int64_t int_value = 0;
  bool bool_value = false;
};

// spec.devices[].capacity[name].requestPolicy (consumable capacity, KEP-5075).
struct DraCapacityRequestPolicyRange {
  std::optional<DraQuantity> min;
  std::optional<DraQuantity> max;
  std::optional<DraQuantity> step;
};

struct DraCapacityRequestPolicy {
  std::optional<DraQuantity> default_value;  // JSON "default"
  std::vector<DraQuantity> valid_values;     // ascending; empty when unset
  std::optional<DraCapacityRequestPolicyRange> valid_range;
};

struct DraDeviceCapacity {
  std::string name;  // map key as written ("memory")
  std::string qualified;
  DraQuantity value;
  std::optional<DraCapacityRequestPolicy> request_policy;
};

// A counter in a CounterSet or a DeviceCounterConsumption: map key -> {value}.
struct DraCounter {
  std::string name;
  DraQuantity value;
};

// spec.sharedCounters[] of a ResourceSlice. Counter set names are unique within a pool.
struct DraCounterSet {
  std::string name;
  std::vector<DraCounter> counters;
};

// spec.devices[].consumesCounters[]: what allocating the device takes from a counter set of its
// pool.
struct DraDeviceCounterConsumption {
  std::string counter_set;
  std::vector<DraCounter> counters;
};

// core/v1 NodeSelector (nodeSelectorTerms ORed, expressions within a term ANDed).
struct DraNodeSelectorRequirement {
  std::string key;
  std::string op;  // JSON "operator": In, NotIn, Exists, DoesNotExist, Gt, Lt
  std::vector<std::string> values;
};

struct DraNodeSelectorTerm {
  std::vector<DraNodeSelectorRequirement> match_expressions;
  std::vector<DraNodeSelectorRequirement> match_fields;  // key "metadata.name" only
};

struct DraNodeSelector {
  std::vector<DraNodeSelectorTerm> node_selector_terms;
};

// spec.devices[] of a ResourceSlice.
struct DraDevice {
  std::string name;
  std::vector<DraAttribute> attributes;
  std::vector<DraDeviceCapacity> capacity;
  std::vector<DraDeviceCounterConsumption> consumes_counters;
  bool allow_multiple_allocations = false;
  DraSourceLocation location;

  const DraAttribute* find_attribute(std::string_view qualified_name) const {
    for (const DraAttribute& a : attributes) {
      if (a.qualified == qualified_name) {
        return &a;
      }
    }
    return nullptr;
  }
  const DraDeviceCapacity* find_capacity(std::string_view qualified_name) const {
    for (const DraDeviceCapacity& c : capacity) {
      if (c.qualified == qualified_name) {
        return &c;
      }
    }
    return nullptr;
  }
};

struct DraResourcePool {
  std::string name;
  int64_t generation = 0;
  int64_t resource_slice_count = 0;
};

// A ResourceSlice. Exactly one of node_name, node_selector, all_nodes says which nodes reach it.
// The allocator uses, per pool, only the slices of the highest generation, and only pools that
// are complete (as many slices of that generation as resource_slice_count).
struct DraResourceSlice {
  std::string name;  // metadata.name
  std::string driver;
  DraResourcePool pool;
  std::optional<std::string> node_name;
  std::optional<DraNodeSelector> node_selector;
  bool all_nodes = false;
  std::vector<DraDevice> devices;
  std::vector<DraCounterSet> shared_counters;
  DraSourceLocation location;
};

// A CEL selector ({cel: {expression}}). Selectors are stored once in DraModel::selectors and
// referred to by index, so that the CEL side can compile each expression once at load time.
using DraSelectorId = uint32_t;

struct DraSelector {
  std::string expression;
  DraSourceLocation location;  // of the expression text, for CEL errors
};

// Decides whether a device satisfies one selector. dramodel's CEL evaluator implements it (and
// has rejected unsupported expressions at load time, so matches() does not fail).
class DraSelectorEvaluator {
 public:
  virtual ~DraSelectorEvaluator() = default;
  virtual bool matches(DraSelectorId selector, const DraDevice& device,
                       std::string_view driver) const = 0;
};

// opaque: {driver, parameters}. `parameters_json` is the parameters object as compact JSON.
// When driver is gpu.nvidia.com and the parameters are apiVersion resource.nvidia.com/v1beta1,
// kind GpuConfig, the reader also fills `gpu_config` (NVIDIA's k8s-dra-driver-gpu api types).
struct DraNvidiaTimeSlicingConfig {
  std::string interval = "Default";  // Default | Short | Medium | Long
};

// A named quantity: capacity.requests entries, consumedCapacity entries, per-device limits.
struct DraNamedQuantity {
  std::string name;
  DraQuantity value;
};

struct DraNvidiaMpsConfig {
  std::optional<int> default_active_thread_percentage;
  std::optional<DraQuantity> default_pinned_device_memory_limit;
  std::vector<DraNamedQuantity> default_per_device_pinned_memory_limit;  // device -> quantity
};

struct DraNvidiaGpuSharing {
  std::string strategy;  // TimeSlicing | MPS
  std::optional<DraNvidiaTimeSlicingConfig> time_slicing_config;
  std::optional<DraNvidiaMpsConfig> mps_config;
};

struct DraNvidiaGpuConfig {
  std::optional<DraNvidiaGpuSharing> sharing;
};

struct DraOpaqueDeviceConfiguration {
  std::string driver;
  std::string parameters_json;
  std::optional<DraNvidiaGpuConfig> gpu_config;
};

// DeviceClass: spec.selectors and spec.config[].opaque.
struct DraDeviceClass {
  std::string name;
  std::vector<DraSelectorId> selectors;
  std::vector<DraOpaqueDeviceConfiguration> config;
  DraSourceLocation location;
};

enum class DraAllocationMode : uint8_t { ExactCount, All };

// What ExactDeviceRequest (requests[].exactly) and DeviceSubRequest (requests[].firstAvailable[])
// share. admin_access is only ever set for `exactly` (the API has no adminAccess on subrequests).
struct DraDeviceSubRequest {
  std::string name;  // subrequests only; empty for `exactly`
  std::string device_class_name;
  std::vector<DraSelectorId> selectors;
  DraAllocationMode allocation_mode = DraAllocationMode::ExactCount;
  int64_t count = 1;                                // ExactCount only; the API defaults it to 1
  std::vector<DraNamedQuantity> capacity_requests;  // capacity.requests, names as written
  bool admin_access = false;
};

// spec.devices.requests[]: exactly one of `exactly` and `first_available` is set.
struct DraDeviceRequest {
  std::string name;
  std::optional<DraDeviceSubRequest> exactly;
  std::vector<DraDeviceSubRequest> first_available;
};

// spec.devices.constraints[]: all devices of the named requests (all requests when empty; a
// request name may also be "<request>/<subrequest>") have the same value of match_attribute.
struct DraDeviceConstraint {
  std::vector<std::string> requests;
  std::string match_attribute;  // fully qualified, e.g. "gpu.nvidia.com/uuid"
};

// spec.devices.config[]: config for the named requests (all when empty).
struct DraDeviceClaimConfiguration {
  std::vector<std::string> requests;
  DraOpaqueDeviceConfiguration opaque;
};

struct DraResourceClaimSpec {
  std::vector<DraDeviceRequest> requests;  // spec.devices.requests
  std::vector<DraDeviceConstraint> constraints;
  std::vector<DraDeviceClaimConfiguration> config;
};

// status.allocation.devices.results[]. `request` is "<request>" or "<request>/<subrequest>" for
// a firstAvailable choice; share_id is set only for a device with allowMultipleAllocations.
struct DraDeviceRequestAllocationResult {
  std::string request;
  std::string driver;
  std::string pool;
  std::string device;
  bool admin_access = false;  // written only when true
  std::optional<std::string> share_id;
  std::vector<DraNamedQuantity> consumed_capacity;  // keys as the device's capacity names
};

// status.allocation.devices.config[]: source is FromClass or FromClaim.
struct DraDeviceAllocationConfiguration {
  std::string source;
  std::vector<std::string> requests;
  DraOpaqueDeviceConfiguration opaque;
};

// status.allocation. node_selector pins the claim to the node it was allocated for
// (matchFields metadata.name In [node]) unless all devices are reachable from all nodes.
struct DraAllocationResult {
  std::vector<DraDeviceRequestAllocationResult> results;  // devices.results
  std::vector<DraDeviceAllocationConfiguration> config;   // devices.config
  std::optional<DraNodeSelector> node_selector;
};

struct DraResourceClaim {
  std::string name;
  std::string namespace_name;  // metadata.namespace
  DraResourceClaimSpec spec;
  DraSourceLocation location;
};

// ResourceClaimTemplate: spec.spec is the claim spec of each claim made from it.
struct DraResourceClaimTemplate {
  std::string name;
  std::string namespace_name;
  DraResourceClaimSpec spec;
  DraSourceLocation location;
};

// A pod's spec.resourceClaims[]: exactly one of the two names is set.
struct DraPodResourceClaim {
  std::string name;
  std::string resource_claim_name;
  std::string resource_claim_template_name;
};

// A Pod object read with the DRA files: only what links it to claims. The run matches it to the
// workload's pod of the same name.
struct DraPod {
  std::string name;
  std::string namespace_name;
  std::vector<DraPodResourceClaim> resource_claims;
  DraSourceLocation location;
};

// Everything read from the scenario's `dra:` files.
struct DraModel {
  std::vector<DraDeviceClass> device_classes;
  std::vector<DraResourceSlice> resource_slices;
  std::vector<DraResourceClaim> resource_claims;
  std::vector<DraResourceClaimTemplate> resource_claim_templates;
  std::vector<DraPod> pods;
  std::vector<DraSelector> selectors;  // indexed by DraSelectorId

  const DraDeviceClass* find_device_class(std::string_view name) const {
    for (const DraDeviceClass& c : device_classes) {
      if (c.name == name) {
        return &c;
      }
    }
    return nullptr;
  }
};

}  // namespace slicelab
