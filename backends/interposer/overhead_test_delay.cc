// The busy-wait of libslicelab-interposer-slowed.so (only that build compiles this file): a spin
// of SLICELAB_OVERHEAD_TEST_{LAUNCH,MEMORY}_SPINS iterations. bench/check-overhead chooses the
// counts by measuring the slowed build until it adds the regression it is meant to show.
#include "backends/interposer/overhead_test_delay.h"

#include <cstdlib>

namespace slicelab::interposer {
namespace {

long spins_from(const char* variable) {
  const char* v = std::getenv(variable);
  return v ? std::strtol(v, nullptr, 10) : 0;
}

}  // namespace

void overhead_test_delay(DelayedPath path) {
  static const long launch = spins_from("SLICELAB_OVERHEAD_TEST_LAUNCH_SPINS");
  static const long memory = spins_from("SLICELAB_OVERHEAD_TEST_MEMORY_SPINS");
  const long n = path == DelayedPath::kLaunch ? launch : memory;
  // Dependent increments the compiler cannot remove.
  for (long i = 0; i < n; ++i) asm volatile("" : "+r"(i));
}

}  // namespace slicelab::interposer
