// The deliberately slowed interposer's added work, with which bench/check-overhead proves that a
// regression in the instructions added per call fails it. Expands to nothing except in that build.
#pragma once

#ifdef SLICELAB_OVERHEAD_TEST_DELAY
namespace slicelab::interposer {
enum class DelayedPath { kLaunch, kMemory };
// Executes SLICELAB_OVERHEAD_TEST_{LAUNCH,MEMORY}_INSTRUCTIONS more instructions on the given
// path (none when unset): exactly that many, rounded up to an even count, on x86-64 and AArch64,
// plus the hook's own few; at least that many elsewhere. A fixed count, not a time, so that the
// gate's instruction counts see the same regression on any machine under any load.
void overhead_test_delay(DelayedPath path);
}  // namespace slicelab::interposer
#define SLICELAB_OVERHEAD_TEST_DELAY_HOOK(path) \
  ::slicelab::interposer::overhead_test_delay(::slicelab::interposer::DelayedPath::path)
#else
#define SLICELAB_OVERHEAD_TEST_DELAY_HOOK(path) static_cast<void>(0)
#endif
