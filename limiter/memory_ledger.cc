#include "limiter/memory_ledger.h"

#include <stdexcept>
#include <string>

namespace slicelab::limiter {

bool try_reserve(LedgerState& s, uint64_t bytes) {
  if (bytes > available(s)) return false;
  s.reserved += bytes;
  return true;
}

void commit(LedgerState& s, uint64_t bytes) {
  const uint64_t moved = bytes <= s.reserved ? bytes : s.reserved;
  s.reserved -= moved;
  s.committed += moved;
}

void cancel(LedgerState& s, uint64_t bytes) {
  s.reserved -= bytes <= s.reserved ? bytes : s.reserved;
}

bool release(LedgerState& s, uint64_t bytes) {
  if (bytes > s.committed) {
    s.committed = 0;
    return false;
  }
  s.committed -= bytes;
  return true;
}

void reconcile(LedgerState& s, uint64_t observed_bytes) {
  // Reservations are not visible to the observer yet, so only committed bytes are compared.
  s.external = observed_bytes > s.committed ? observed_bytes - s.committed : 0;
}

MemoryAccount::MemoryAccount(std::vector<uint64_t> caps) {
  devices_.resize(caps.size());
  for (size_t i = 0; i < caps.size(); ++i) devices_[i].cap = caps[i];
}

LedgerState& MemoryAccount::at(int device) {
  if (device < 0 || static_cast<size_t>(device) >= devices_.size())
    throw std::out_of_range("MemoryAccount: no device " + std::to_string(device));
  return devices_[static_cast<size_t>(device)];
}
const LedgerState& MemoryAccount::device(int device) const {
  return const_cast<MemoryAccount*>(this)->at(device);
}
bool MemoryAccount::try_reserve(int device, uint64_t bytes) {
  return limiter::try_reserve(at(device), bytes);
}
void MemoryAccount::commit(int device, uint64_t bytes) {
  limiter::commit(at(device), bytes);
}
void MemoryAccount::cancel(int device, uint64_t bytes) {
  limiter::cancel(at(device), bytes);
}
bool MemoryAccount::release(int device, uint64_t bytes) {
  return limiter::release(at(device), bytes);
}
void MemoryAccount::reconcile(int device, uint64_t observed_bytes) {
  limiter::reconcile(at(device), observed_bytes);
}

}  // namespace slicelab::limiter
