#include "sim/sharing/max_min_fair.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <numeric>

namespace slicelab {

void max_min_fair(std::span<const double> demand, double capacity, std::span<double> alloc) {
  assert(demand.size() == alloc.size());
  const size_t n = demand.size();
  if (n == 0) return;
  double total = 0;
  for (const double d : demand) total += d;
  if (total <= capacity) {
    std::copy(demand.begin(), demand.end(), alloc.begin());
    return;
  }
  // Visit tenants from the smallest demand up: each either gets all it asks or, once the
  // equal share of what is left is below its demand, every remaining tenant gets that share.
  constexpr size_t kInline = 64;
  std::array<unsigned char, kInline> order_small{};
  assert(n <= kInline);
  auto order = std::span(order_small).first(n);
  std::iota(order.begin(), order.end(), static_cast<unsigned char>(0));
  std::sort(order.begin(), order.end(), [&](unsigned char a, unsigned char b) {
    return demand[a] < demand[b] || (demand[a] == demand[b] && a < b);
  });
  double left = capacity;
  for (size_t k = 0; k < n; ++k) {
    const size_t i = order[k];
    const double share = left / static_cast<double>(n - k);
    if (demand[i] <= share) {
      alloc[i] = demand[i];
      left -= demand[i];
    } else {
      for (size_t j = k; j < n; ++j) alloc[order[j]] = share;
      return;
    }
  }
}

}  // namespace slicelab
