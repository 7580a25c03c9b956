#include "planning/size_search.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace slicelab {
namespace {

class CachedCheck {
 public:
  explicit CachedCheck(const BatchCheck& check) : check_(check) {}

  // Runs the sizes not seen yet; returns nothing (read results with meets()).
  void run(std::vector<int> sizes) {
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    std::erase_if(sizes, [&](int s) { return seen_.contains(s); });
    if (sizes.empty()) return;
    const std::vector<bool> ok = check_(sizes);
    if (ok.size() != sizes.size()) throw std::logic_error("batch check returned a wrong count");
    for (size_t i = 0; i < sizes.size(); ++i) seen_[sizes[i]] = ok[i];
  }
  bool meets(int size) const { return seen_.at(size); }
  const std::map<int, bool>& seen() const { return seen_; }
  void record(int size, bool ok) { seen_[size] = ok; }

 private:
  const BatchCheck& check_;
  std::map<int, bool> seen_;
};

}  // namespace

SizeSearchResult find_smallest_size(int min_size, int max_size, int width,
                                    const BatchCheck& check) {
  if (min_size < 1 || max_size < min_size) throw std::invalid_argument("bad size range");
  width = std::max(width, 1);
  CachedCheck cache(check);

  // Gallop: min, 2 min, 4 min, ... (capped at max) until one size meets the check.
  std::optional<int> fail;  // largest size known to fail below `pass`
  std::optional<int> pass;
  int next = min_size;
  bool exhausted = false;
  while (!pass && !exhausted) {
    std::vector<int> batch;
    while (static_cast<int>(batch.size()) < width && !exhausted) {
      batch.push_back(next);
      if (next == max_size) exhausted = true;
      next = std::min(max_size, std::max(next + 1, 2 * next));
    }
    cache.run(batch);
    for (const int s : batch) {
      if (cache.meets(s)) {
        pass = s;
        break;
      }
      fail = s;
    }
  }

  SizeSearchResult result;
  if (pass) {
    // Bisect (lo fails, hi passes) with `width` probes per round.
    int lo = fail.value_or(min_size - 1);
    int hi = *pass;
    while (hi - lo > 1) {
      std::vector<int> batch;
      const int gap = hi - lo;
      if (gap - 1 <= width) {
        for (int s = lo + 1; s < hi; ++s) batch.push_back(s);
      } else {
        for (int j = 1; j <= width; ++j)
          batch.push_back(lo + static_cast<int>(static_cast<long long>(gap) * j / (width + 1)));
      }
      cache.run(batch);
      std::sort(batch.begin(), batch.end());
      int new_hi = hi;
      for (const int s : batch)
        if (s > lo && s < hi && cache.meets(s)) {
          new_hi = s;
          break;
        }
      int new_lo = lo;
      for (const int s : batch)
        if (s > lo && s < new_hi && !cache.meets(s)) new_lo = s;
      if (new_hi == hi && new_lo == lo) break;  // cannot happen: every round probes inside
      lo = new_lo;
      hi = new_hi;
    }
    // Verify by running the check again (not from the cache); walk up while it fails.
    int candidate = hi;
    for (;;) {
      const std::vector<int> one{candidate};
      const std::vector<bool> ok = check(one);
      cache.record(candidate, ok.at(0));
      if (ok.at(0)) {
        result.size = candidate;
        break;
      }
      if (candidate == max_size) break;
      ++candidate;
      ++result.walked_up;
    }
  }
  for (const auto& [size, ok] : cache.seen()) result.probes.push_back({size, ok});
  bool failed_above = false;
  for (auto it = result.probes.rbegin(); it != result.probes.rend(); ++it) {
    if (!it->meets)
      failed_above = true;
    else if (failed_above)
      result.non_monotone = true;
  }
  return result;
}

}  // namespace slicelab
