// A time series of samples of equal size (one row per queue, say) kept within a row cap: when
// full, every other sample is dropped and later ones are taken half as often, so that a long run
// keeps an even view of its whole length in bounded memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace slicelab {

// Contract: each sample is `group` rows, added through take() after wants() said yes; rows()
// never holds more than max(cap, group) rows.
template <typename Row>
class BoundedSeries {
 public:
  BoundedSeries(size_t group, size_t cap) : group_(group == 0 ? 1 : group), cap_(cap) {}

  // Whether the next sample is kept: samples 0, stride, 2 x stride, ...
  bool wants() {
    current_ = seen_++;
    return current_ % stride_ == 0;
  }
  // Adds the kept sample's rows (exactly `group` of them, appended by `fill`); when that would
  // pass the cap, the series is halved first, and the sample is kept only if it still falls on
  // the new stride.
  template <typename Fill>
  void take(Fill fill) {
    if (rows_.size() + group_ > cap_ && rows_.size() >= group_) {
      halve();
      if (current_ % stride_ != 0) return;
    }
    fill(rows_);
  }
  std::vector<Row> release() { return std::move(rows_); }
  const std::vector<Row>& rows() const { return rows_; }
  uint64_t stride() const { return stride_; }

 private:
  // The kept samples are samples 0, stride, 2 x stride, ...: keeping the even-numbered ones
  // leaves the multiples of twice the stride.
  void halve() {
    const size_t samples = rows_.size() / group_;
    size_t out = 0;
    for (size_t s = 0; s < samples; s += 2)
      for (size_t k = 0; k < group_; ++k) rows_[out++] = rows_[s * group_ + k];
    rows_.resize(out);
    stride_ *= 2;
  }

  size_t group_, cap_;
  std::vector<Row> rows_;
  uint64_t seen_ = 0;
  uint64_t stride_ = 1;
  uint64_t current_ = 0;
};

}  // namespace slicelab
