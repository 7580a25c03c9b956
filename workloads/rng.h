// The project's seeded random source: std::mt19937_64 (bit-exact everywhere by the standard)
// with our own transforms, because std:: distributions differ between standard libraries.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string_view>

namespace slicelab {

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  // Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n); n > 0. Rejection sampling keeps it exactly uniform.
  uint64_t below(uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x = engine_();
    while (x >= limit) x = engine_();
    return x % n;
  }
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }
  double normal() {
    // Box-Muller, one value per call: simple and reproducible.
    const double u1 = 1.0 - uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
  }

 private:
  std::mt19937_64 engine_;
};

// Derives an independent stream seed from a base seed and a label (e.g. a policy name),
// so that each policy's random choices do not depend on the order policies run in.
inline uint64_t derive_seed(uint64_t base, std::string_view label) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (const char c : label) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  uint64_t z = base + 0x9e3779b97f4a7c15ULL + h;  // splitmix64 finaliser
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace slicelab
