// Per-device memory accounting with a hard cap, exact to the byte: two-phase reserve/commit so
// that concurrent allocators never overshoot, plus reconciliation against observed usage.
#pragma once

#include <cstdint>
#include <vector>

namespace slicelab::limiter {

// One device's tally. A plain struct on purpose: the interposer keeps it in a shared-memory
// region guarded by a process-shared lock; the simulator keeps it in an ordinary vector.
struct LedgerState {
  uint64_t cap = UINT64_MAX;  // bytes; UINT64_MAX means uncapped
  uint64_t reserved = 0;      // promised to calls still inside the driver
  uint64_t committed = 0;     // held by live allocations
  uint64_t external = 0;      // observed usage that we did not see allocated (reconciliation)
};

inline uint64_t in_use(const LedgerState& s) {
  return s.reserved + s.committed + s.external;
}
inline uint64_t available(const LedgerState& s) {
  const uint64_t used = in_use(s);
  return used >= s.cap ? 0 : s.cap - used;
}

// Reserves `bytes` if the cap allows it: reserved + committed + external + bytes <= cap.
// Written so that no sum can wrap around, whatever the inputs.
bool try_reserve(LedgerState& s, uint64_t bytes);
// Turns a reservation into a live allocation (the driver call succeeded).
void commit(LedgerState& s, uint64_t bytes);
// Drops a reservation (the driver call failed).
void cancel(LedgerState& s, uint64_t bytes);
// Credits a freed allocation. Returns false, and clamps at zero, when asked to release more than
// is committed: a tally must never underflow into "17 TB in use".
bool release(LedgerState& s, uint64_t bytes);
// Records usage observed outside our own tally (e.g. NVML's per-process figures summed over a
// container): whatever exceeds what we committed counts against the cap from now on.
void reconcile(LedgerState& s, uint64_t observed_bytes);

// The simulator's view: one ledger per device of a pod.
class MemoryAccount {
 public:
  explicit MemoryAccount(std::vector<uint64_t> caps);
  bool try_reserve(int device, uint64_t bytes);
  void commit(int device, uint64_t bytes);
  void cancel(int device, uint64_t bytes);
  bool release(int device, uint64_t bytes);
  void reconcile(int device, uint64_t observed_bytes);
  const LedgerState& device(int device) const;
  int device_count() const { return static_cast<int>(devices_.size()); }

 private:
  LedgerState& at(int device);
  std::vector<LedgerState> devices_;
};

}  // namespace slicelab::limiter
