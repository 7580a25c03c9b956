// Cache hints for the event loop: a record the next event will read or write is fetched while
// the current event runs. A hint never changes a result; any address inside a live object will do.
#pragma once

namespace slicelab {

// Each hint ends in an empty volatile asm. It emits nothing, but it is an effect: GCC 12 takes a
// function whose only effect is a prefetch for one without side effects and drops calls to it
// before inlining (measured: every hint of the engine's prefetch_event() vanished).

// The line holding *p is fetched for writing (the event will update it).
inline void prefetch_for_write(const void* p) {
  __builtin_prefetch(p, 1, 3);
  asm volatile("");  // NOLINT(hicpp-no-assembler): keeps the hint (above)
}
// The line holding *p is fetched for reading.
inline void prefetch_for_read(const void* p) {
  __builtin_prefetch(p, 0, 3);
  asm volatile("");  // NOLINT(hicpp-no-assembler): keeps the hint (above)
}

}  // namespace slicelab
