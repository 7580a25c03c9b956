// Max-min fair sharing of one capacity among demands (water-filling), the single solver every
// sharing mode's rate model uses, in the manner of SimGrid's lmm solver.
#pragma once

#include <span>

namespace slicelab {

// Fills alloc[i] <= demand[i] so that sum(alloc) <= capacity and no tenant can get more
// without taking from one that has less. Small n (tenants of one GPU); no allocation.
void max_min_fair(std::span<const double> demand, double capacity, std::span<double> alloc);

}  // namespace slicelab
