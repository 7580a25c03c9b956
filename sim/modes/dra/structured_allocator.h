// kube-scheduler's structured DRA allocator: allocates a pod's ResourceClaims on one node from
// the ResourceSlices that node reaches, with backtracking, counters and consumable capacity.
#pragma once

// Search order (k8s.io/dynamic-resource-allocation/structured, allocateOne): claims in the pod's
// order, requests in order, firstAvailable subrequests in order (the first that succeeds wins),
// devices pool by pool (pools sorted by driver, then pool name), slice by slice (by name), device
// by device; within one request only combinations, not permutations, are tried. A device that
// breaks a matchAttribute constraint, lacks counters or capacity, or is in use is skipped, and
// when a later request cannot be met earlier choices are revisited.
//
// State is one set of flat arrays indexed by device slot (in use, shares, capacity consumed) and
// by counter (left); a search changes them in place and undoes on backtracking, so an attempt
// allocates nothing once the buffers have grown.

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/dra_model.h"

namespace slicelab {

using DraClaimId = uint32_t;

// One device a claim holds: where it is in the model.
struct DraHeldDevice {
  uint32_t slice = 0;   // index into DraModel::resource_slices
  uint32_t device = 0;  // index into that slice's devices
};

// A search that ran past kDraSearchTimeLimit: a safety net that never fires on a machine that
// runs the step bound in its stated time, and reports an error rather than a different result.
class DraSearchTimeLimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class DraStructuredAllocator {
 public:
  // Bounded backtracking: at most this many search steps per attempt on one node; beyond it the
  // node counts as unable to hold the pod (kube-scheduler bounds the same search by the Filter's
  // timeout). A step is one node of the search or one device considered, plus one per
  // matchAttribute constraint and counter it checks, so its cost does not grow with the input:
  // about 10 to 30 ns (bench/dra_allocator.cc).
  static constexpr int64_t kDefaultMaxSteps = 200000;
  // The ceiling a scenario's max_steps may ask for: one attempt then takes at most about 30 ms.
  static constexpr int64_t kMaxMaxSteps = 1'000'000;
  // The wall-clock safety net of one attempt. The step bound decides every result (so that a
  // run is a pure function of its scenario and seed); an attempt still running after this long
  // means a machine far slower than the bound assumes, and it throws DraSearchTimeLimitError.
  static constexpr std::chrono::milliseconds kSearchTimeLimit{2000};

  // `model` and `selectors` outlive the allocator. `node_names[i]` is node i's name (slices
  // reach nodes by spec.nodeName, spec.allNodes, or a nodeSelector's matchFields metadata.name).
  // The model's ResourceClaims become claims 0..n-1 in their order. `max_steps` is in
  // 1..kMaxMaxSteps (std::invalid_argument otherwise); `time_limit` is the safety net's (tests
  // shorten it).
  DraStructuredAllocator(const DraModel& model, const DraSelectorEvaluator& selectors,
                         std::vector<std::string> node_names, int64_t max_steps = kDefaultMaxSteps,
                         std::chrono::milliseconds time_limit = kSearchTimeLimit);

  // A claim made from ResourceClaimTemplate `template_index` for one pod (kube's resourceclaim
  // controller names it "<pod>-<pod claim name>"; slicelab drops the random suffix).
  DraClaimId add_claim_from_template(size_t template_index, std::string name,
                                     std::string namespace_name);
  // A claim with this spec (which outlives the allocator), e.g. one the run makes for a pod.
  DraClaimId add_claim(const DraResourceClaimSpec& spec, std::string name,
                       std::string namespace_name);
  // Room for `n` claims in all, so that a run adding one per pod does not move them as it grows.
  void reserve_claims(size_t n) { claims_.reserve(n); }
  // The claim named so in the namespace (ResourceClaims and claims made from templates), if any.
  std::optional<DraClaimId> find_claim(std::string_view namespace_name,
                                       std::string_view name) const;
  size_t claim_count() const { return claims_.size(); }
  const std::string& claim_name(DraClaimId c) const { return claims_[c].name; }
  const std::string& claim_namespace(DraClaimId c) const { return claims_[c].namespace_name; }
  const DraResourceClaimSpec& claim_spec(DraClaimId c) const {
    return *specs_[claims_[c].spec].spec;
  }
  // Claims made from one spec (the same object) share this index.
  uint32_t claim_spec_index(DraClaimId c) const { return claims_[c].spec; }
  // Advances whenever an allocation or a release changes a device, counter or capacity of a
  // pool the node reaches, and only then. So can_allocate of claims none of which is allocated
  // is a function of their specs, the node and this: callers may keep its answer while this
  // stays the same.
  uint64_t node_version(uint32_t node) const {
    uint64_t v = 0;
    for (uint32_t k = node_chunk_begin_[node]; k < node_chunk_begin_[node + 1]; ++k)
      v += pool_version_[chunks_[k].pool];  // each only grows, so the sum changes with any
    return v;
  }

  // Filter: whether every claim can be allocated for `node` (claims already allocated must be
  // usable from it). Changes nothing.
  bool can_allocate(std::span<const DraClaimId> claims, uint32_t node);
  // Reserve: allocates the claims not yet allocated and adds one consumer (reservedFor) to each;
  // false, changing nothing, when they do not fit.
  bool allocate(std::span<const DraClaimId> claims, uint32_t node);
  // Unreserve or pod end: removes one consumer from each; a claim with none left is
  // deallocated and its devices, counters and capacity are free again.
  void release(std::span<const DraClaimId> claims);

  // status.allocation while the claim is allocated.
  const std::optional<DraAllocationResult>& allocation(DraClaimId c) const {
    return claims_[c].allocation;
  }
  std::span<const DraHeldDevice> held_devices(DraClaimId c) const { return claims_[c].held; }
  // The node an allocated claim is bound to, or UINT32_MAX when its devices reach all nodes.
  uint32_t allocated_node(DraClaimId c) const { return claims_[c].node; }

  // Why the last can_allocate/allocate failed, e.g. "claim default/a: request gpu: no device
  // left" or "device class x not found"; empty after a success.
  const std::string& last_failure() const { return failure_; }
  // Search steps of the last attempt (for tests and benchmarks).
  int64_t last_steps() const { return steps_; }

 private:
  struct Unit {
    const DraDeviceSubRequest* req = nullptr;
    const DraDeviceClass* cls = nullptr;  // null: the class does not exist
    std::string result_name;              // "<request>" or "<request>/<subrequest>"
    uint64_t constraint_mask = 0;         // bit i: spec.constraints[i] applies
    int constraints = 0;                  // bits set in constraint_mask
  };

  struct SpecInfo {
    const DraResourceClaimSpec* spec = nullptr;
    std::vector<uint32_t> request_unit;  // per request: its unit, or its first subrequest's
    std::string missing_class;
  };

  struct Claim {
    std::string name;
    std::string namespace_name;
    uint32_t spec = 0;
    uint32_t users = 0;
    uint32_t node = UINT32_MAX;
    std::optional<DraAllocationResult> allocation;
    std::vector<DraHeldDevice> held;
    std::vector<uint32_t> held_slots;
    std::vector<uint8_t> held_admin;
    std::vector<int64_t> held_caps;  // per held multi-allocation slot, its capacity amounts
  };

  struct Slot {
    uint32_t slice = 0;
    uint32_t device = 0;
    const DraDevice* dev = nullptr;
    const DraResourceSlice* sl = nullptr;
    uint32_t cap_begin = 0, cap_end = 0;
    uint32_t use_begin = 0, use_end = 0;
    uint32_t pool = 0;
    bool multi = false;
  };

  struct Chosen {
    uint32_t claim = 0;  // position in the pod's claims
    uint32_t unit = 0;
    uint32_t slot = 0;
    uint32_t cap_begin = 0;  // into chosen_caps_ (multi-allocation slots only)
    bool admin = false;
    bool took_counters = false;
  };

  struct Loc {
    uint32_t chunk = 0;
    uint32_t slot = 0;
  };

  uint32_t add_spec(const DraResourceClaimSpec& spec);
  bool search(std::span<const DraClaimId> claims, uint32_t node);
  // Counts `n` steps; false (and the search aborted) past max_steps_.
  bool charge(int64_t n);
  bool one(uint32_t c, uint32_t r, int32_t sub, int64_t d, Loc start);
  bool all_mode(uint32_t c, uint32_t r, uint32_t unit);
  bool selectable(uint32_t unit, uint32_t slot);
  bool take(uint32_t c, uint32_t unit, uint32_t slot);
  void untake();
  void undo_all();
  void commit_claim(uint32_t c, uint32_t begin, uint32_t end);
  void build_result(DraClaimId id, uint32_t begin, uint32_t end);
  bool capacity_amounts(const Unit& u, const Slot& s, int64_t* out) const;
  void fail(std::string why);

  const DraModel& model_;
  const DraSelectorEvaluator& selectors_;
  std::vector<std::string> node_names_;
  int64_t max_steps_;
  std::chrono::milliseconds time_limit_;

  // Device slots: pool by pool, slice by slice, device by device.
  std::vector<Slot> slots_;
  std::vector<int64_t> cap_value_;  // per slot capacity entry (Slot::cap_begin..)
  std::vector<int64_t> cap_used_;
  std::vector<uint32_t> exclusive_;  // allocations holding the slot alone
  std::vector<uint32_t> shares_;     // allocations sharing an allowMultipleAllocations slot
  struct CounterUse {
    uint32_t counter = 0;
    int64_t amount = 0;
  };
  std::vector<CounterUse> counter_uses_;  // per slot (Slot::use_begin..)
  std::vector<int64_t> counter_left_;
  // Per node: its slices' slot ranges, in pool and slice order.
  struct Chunk {
    uint32_t slot_begin = 0;
    uint32_t slot_end = 0;
    uint32_t pool = 0;
    bool pool_complete = true;
  };
  std::vector<Chunk> chunks_;
  std::vector<uint32_t> node_chunk_begin_;  // node_count + 1
  std::vector<uint64_t> pool_version_;      // per pool: commits and releases of its devices

  std::vector<Unit> units_;
  std::vector<SpecInfo> specs_;
  std::vector<Claim> claims_;
  std::vector<int8_t> match_;  // unit x slot: -1 unknown, 0, 1
  uint64_t next_share_ = 0;

  // The search.
  std::span<const DraClaimId> pod_claims_;
  uint32_t node_ = 0;
  int64_t steps_ = 0;
  int64_t next_clock_check_ = 0;
  std::chrono::steady_clock::time_point started_;
  bool aborted_ = false;
  std::vector<Chosen> chosen_;
  std::vector<int64_t> chosen_caps_;
  std::vector<uint32_t> claim_chosen_begin_;  // per pod claim: first chosen_ entry
  std::vector<int32_t> selected_sub_;         // per pod claim x request
  std::vector<uint32_t> selected_begin_;      // per pod claim: offset into selected_sub_
  struct ConstraintState {
    const DraAttribute* value = nullptr;
    uint32_t refs = 0;
  };
  std::vector<ConstraintState> constraints_;
  std::vector<uint32_t> constraint_begin_;  // per pod claim
  std::vector<uint32_t> all_buf_;
  std::string failure_;
};

// A quantity as Kubernetes would print it: the largest exact binary suffix when the value is a
// multiple of 1024 ("40Gi"), else the plain integer.
std::string format_dra_quantity(int64_t value);

}  // namespace slicelab
