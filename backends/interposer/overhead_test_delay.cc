// The added work of libslicelab-interposer-slowed.so (only that build compiles this file): a loop
// of SLICELAB_OVERHEAD_TEST_{LAUNCH,MEMORY}_INSTRUCTIONS instructions. bench/check-overhead sets
// the counts from the committed baseline (a fraction of the real build's added instructions).
#include "backends/interposer/overhead_test_delay.h"

#include <cstdlib>

namespace slicelab::interposer {
namespace {

// Loop iterations for `variable`'s instruction count: two instructions per iteration below.
long iterations_from(const char* variable) {
  const char* v = std::getenv(variable);
  const long n = v ? std::strtol(v, nullptr, 10) : 0;
  return n > 0 ? n / 2 + n % 2 : 0;
}

// Read when the library is loaded, so that a hooked call pays no initialisation guard: the
// delay's own instructions stay a handful beside the asked count.
const long g_launch = iterations_from("SLICELAB_OVERHEAD_TEST_LAUNCH_INSTRUCTIONS");
const long g_memory = iterations_from("SLICELAB_OVERHEAD_TEST_MEMORY_INSTRUCTIONS");

}  // namespace

void overhead_test_delay(DelayedPath path) {
  // A decrement and a conditional branch per iteration, written out so that the compiler can
  // neither remove nor reshape the loop: the count is what the gate must see.
  long n = path == DelayedPath::kLaunch ? g_launch : g_memory;
  if (n <= 0) return;
#if defined(__x86_64__)
  asm volatile("1:\n\tdec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#elif defined(__aarch64__)
  asm volatile("1:\n\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#else
  for (long i = 0; i < n; ++i) asm volatile("" : "+r"(i));
#endif
}

}  // namespace slicelab::interposer
