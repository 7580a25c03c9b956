// The deliberately slowed interposer's busy-wait, with which bench/check-overhead proves that a
// regression in the added cost fails it. Expands to nothing except in that build.
#pragma once

#ifdef SLICELAB_OVERHEAD_TEST_DELAY
namespace slicelab::interposer {
enum class DelayedPath { kLaunch, kMemory };
// Spins SLICELAB_OVERHEAD_TEST_{LAUNCH,MEMORY}_SPINS iterations (none when unset).
void overhead_test_delay(DelayedPath path);
}  // namespace slicelab::interposer
#define SLICELAB_OVERHEAD_TEST_DELAY_HOOK(path) \
  ::slicelab::interposer::overhead_test_delay(::slicelab::interposer::DelayedPath::path)
#else
#define SLICELAB_OVERHEAD_TEST_DELAY_HOOK(path) static_cast<void>(0)
#endif
