// An immutable value shared by every copy that holds it, in one pointer (8 bytes, where a
// std::shared_ptr takes 16): the storage under a pod's shared class, MIG profile and models.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

namespace slicelab {

// Null means "no value". Copies share one heap block with an atomic count, so pods may be
// copied and dropped from several threads (policies run in parallel over one workload).
template <typename T>
class SharedValue {
 public:
  SharedValue() = default;
  explicit SharedValue(T value) : block_(std::make_unique<Block>(std::move(value)).release()) {}
  SharedValue(const SharedValue& other) noexcept : block_(other.block_) { retain(); }
  SharedValue(SharedValue&& other) noexcept : block_(std::exchange(other.block_, nullptr)) {}
  SharedValue& operator=(const SharedValue& other) noexcept {
    if (this != &other) {
      SharedValue copy(other);
      swap(copy);
    }
    return *this;
  }
  SharedValue& operator=(SharedValue&& other) noexcept {
    SharedValue moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~SharedValue() { release(); }

  explicit operator bool() const { return block_ != nullptr; }
  const T& operator*() const { return block_->value; }
  const T* operator->() const { return &block_->value; }
  const T* get() const { return block_ ? &block_->value : nullptr; }
  void reset() {
    SharedValue none;
    swap(none);
  }
  void swap(SharedValue& other) noexcept { std::swap(block_, other.block_); }
  // Copies holding this block, this one included (tests check the sharing).
  uint32_t use_count() const { return block_ ? block_->count.load(std::memory_order_relaxed) : 0; }

 private:
  struct Block {
    explicit Block(T v) : value(std::move(v)) {}
    std::atomic<uint32_t> count{1};
    const T value;
  };

  void retain() const {
    if (block_) block_->count.fetch_add(1, std::memory_order_relaxed);
  }
  void release() {
    // The last owner deletes through a unique_ptr: acquire-release orders every owner's reads
    // of the value before the deletion.
    if (block_ && block_->count.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::unique_ptr<Block> last(block_);
    }
    block_ = nullptr;
  }

  Block* block_ = nullptr;
};

}  // namespace slicelab
