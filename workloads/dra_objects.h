// Dynamic Resource Allocation objects (resource.k8s.io/v1) as read from YAML or JSON: device
// classes, resource slices, claims, claim templates and the pods that name them (docs/dra.md).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "workloads/k8s_quantity.h"

namespace slicelab {

// A CEL selector's text and where each of its bytes sits in the file, so that the compiler
// (sim/dra/cel_expression.h) names the line and column of an unsupported construct.
struct DraCelText {
  std::string expression;
  std::string file;
  std::vector<uint32_t> line, column;  // 1-based, one per byte of `expression` plus its end
  std::string where;                   // "FILE:LINE:COL: path" of the expression field
  // "FILE:LINE:COL" of byte `offset` of the expression.
  std::string locate(size_t offset) const;
};

// One attribute value: exactly one of int, bool, string, version (semver text).
struct DraAttribute {
  enum class Kind : uint8_t { kInt, kBool, kString, kVersion };
  Kind kind = Kind::kString;
  int64_t int_value = 0;
  bool bool_value = false;
  std::string text;  // the string, or the version as written
};

struct DraCapacityPolicy {
  std::optional<Quantity> default_value;
  std::vector<Quantity> valid_values;  // ascending, as the API requires
  std::optional<Quantity> min, max, step;
};

struct DraDeviceCapacity {
  Quantity value;
  std::optional<DraCapacityPolicy> request_policy;
};

struct DraCounterSet {
  std::string name;
  std::map<std::string, Quantity> counters;
};

struct DraDevice {
  std::string name;
  std::string where;
  // Keys as written: unqualified ("productName", the driver's own domain) or "domain/name".
  std::map<std::string, DraAttribute> attributes;
  std::map<std::string, DraDeviceCapacity> capacity;
  std::vector<DraCounterSet> consumes_counters;  // counterSet and counters consumed
  bool allow_multiple_allocations = false;
};

struct DraResourceSlice {
  std::string name;
  std::string where;
  std::string driver;
  std::string node_name;  // empty with all_nodes
  bool all_nodes = false;
  std::string pool;
  int64_t pool_generation = 0;
  int64_t pool_slice_count = 1;
  std::vector<DraDevice> devices;
  std::vector<DraCounterSet> shared_counters;
};

// NVIDIA's GpuConfig (resource.nvidia.com/v1beta1) sharing settings, from a claim's or a
// class's opaque config for driver gpu.nvidia.com.
struct DraGpuSharing {
  enum class Strategy : uint8_t { kNone, kTimeSlicing, kMps };
  Strategy strategy = Strategy::kNone;
  std::string interval = "Default";                 // timeSlicingConfig.interval
  std::optional<int64_t> active_thread_percentage;  // mpsConfig.defaultActiveThreadPercentage
  std::optional<int64_t> pinned_memory_limit_mib;   // defaultPinnedDeviceMemoryLimit
  std::map<std::string, int64_t> per_device_pinned_memory_limit_mib;
};

struct DraOpaqueConfig {
  std::vector<std::string> requests;  // empty: every request
  std::string driver;
  std::string kind;  // parameters.kind (GpuConfig, MigDeviceConfig, ...)
  std::optional<DraGpuSharing> gpu_sharing;
  std::string where;
};

struct DraDeviceClass {
  std::string name;
  std::string where;
  // spec.extendedResourceName: read, not simulated (pods asking for the extended resource
  // take the device-plugin path in slicelab).
  std::string extended_resource_name;
  std::vector<DraCelText> selectors;
  std::vector<DraOpaqueConfig> config;
};

struct DraExactRequest {
  std::string device_class_name;
  std::vector<DraCelText> selectors;
  bool all = false;                                   // allocationMode All (else ExactCount)
  int64_t count = 1;                                  // ExactCount
  std::map<std::string, Quantity> capacity_requests;  // capacity.requests
};

struct DraSubRequest {
  std::string name;
  DraExactRequest request;
};

struct DraRequest {
  std::string name;
  std::string where;
  std::optional<DraExactRequest> exactly;
  std::vector<DraSubRequest> first_available;
};

struct DraConstraint {
  std::vector<std::string> requests;  // empty: all requests of the claim
  std::string match_attribute;        // fully qualified ("gpu.nvidia.com/uuid")
};

struct DraClaimSpec {
  std::vector<DraRequest> requests;
  std::vector<DraConstraint> constraints;
  std::vector<DraOpaqueConfig> config;
};

struct DraClaim {
  std::string name;  // "<namespace>/<name>"
  std::string where;
  bool is_template = false;  // a ResourceClaimTemplate (the pod gets its own claim from it)
  DraClaimSpec spec;
};

struct DraPodClaim {
  std::string name;  // the pod's name for the claim (containers' resources.claims refer to it)
  std::string claim_name;     // resourceClaimName: a shared ResourceClaim
  std::string template_name;  // resourceClaimTemplateName: one claim per pod
};

struct DraPod {
  std::string name;  // "<namespace>/<name>"
  std::string where;
  std::vector<DraPodClaim> claims;
};

struct DraObjects {
  std::vector<DraDeviceClass> classes;
  std::vector<DraResourceSlice> slices;
  std::vector<DraClaim> claims;  // claims and templates
  std::vector<DraPod> pods;      // pods with spec.resourceClaims
  std::map<std::string, int> skipped_kinds;
};

// Reads every DRA object of `path` (YAML or JSON; one object, a List, or a stream). Field
// names are resource.k8s.io/v1's (v1beta2 has the same paths and is read too; v1beta1 and
// v1alpha3 nest fields differently and are refused). Throws InputError "FILE:LINE:COL: path:
// …" for an unknown field (with a did-you-mean), a real field slicelab does not simulate
// (tolerations, taints, adminAccess, ...), a bad quantity or a missing required field. CEL
// expressions are not compiled here: sim/dra compiles them with DraCelText::locate.
void read_dra_objects(const std::string& path, DraObjects& into);

}  // namespace slicelab
