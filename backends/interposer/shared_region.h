// The accounting region a container's processes share (file-backed mmap, robust lock, per-process
// slots), so that a SIGKILLed process leaves neither a held lock nor a leaked share behind.
#pragma once

#include <pthread.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "backends/interposer/config.h"

namespace slicelab::interposer {

constexpr uint64_t kRegionMagic = 0x534c4943454c4142ULL;  // "SLICELAB"
constexpr uint32_t kRegionVersion = 2;
constexpr int kMaxSlots = 256;

struct RegionDevice {
  std::atomic<uint64_t> cap;  // bytes, as configured by the processes (UINT64_MAX: none)
  std::atomic<uint32_t> sm_percent;
  // Container totals; written under the lock, readable without it (stats, cuMemGetInfo).
  std::atomic<uint64_t> reserved;
  std::atomic<uint64_t> committed;
  // The compute limiter's state (its GCRA time), shared so that the cap holds per container.
  std::atomic<int64_t> limiter_tat;
  // Usage NVML reports for the container's processes beyond what they committed through us
  // (reconciliation, opt-in): it counts against the cap.
  std::atomic<uint64_t> external;
};

struct RegionSlot {
  std::atomic<int32_t> pid;          // 0: free
  std::atomic<uint64_t> start_time;  // /proc/<pid>/stat start time, to tell a reused pid
  std::atomic<uint64_t> reserved[kMaxDevices];
  std::atomic<uint64_t> committed[kMaxDevices];
  // Written by the process itself without the lock (relaxed atomics): launch statistics.
  std::atomic<uint64_t> launches[kMaxDevices];
  std::atomic<uint64_t> throttled_ns[kMaxDevices];
};

struct RegionLayout {
  uint64_t magic;
  uint32_t version;
  std::atomic<uint32_t> state;  // 0 new, 1 initialising, 2 ready
  pthread_mutex_t lock;         // process-shared and robust
  RegionDevice devices[kMaxDevices];
  RegionSlot slots[kMaxSlots];
};

class SharedRegion {
 public:
  // Maps `path` (created 0666 if missing); with an empty path, or when the file cannot be used,
  // maps private memory instead and says why in *warning: caps then hold per process.
  static SharedRegion* open(const std::string& path, const Config& cfg, std::string* warning);
  // For `slicelab interposer stats`: maps an existing region read-only; nullptr and *error.
  static SharedRegion* open_readonly(const std::string& path, std::string* error);

  // This process's slot (claimed on first use, re-claimed after fork). Inline: every launch
  // counts itself in its slot.
  int slot() {
    const int s = slot_.load(std::memory_order_acquire);
    if (s >= 0 && slot_pid_.load(std::memory_order_relaxed) == process_id()) [[likely]]
      return s;
    return claim_slot();
  }
  // Two-phase accounting against `cap` on device `dev`, container-wide.
  bool reserve(int dev, uint64_t bytes, uint64_t cap);
  void commit(int dev, uint64_t bytes);
  void cancel(int dev, uint64_t bytes);
  void release(int dev, uint64_t bytes);
  uint64_t used(int dev) const;  // reserved + committed (+ external) over the container
  // Reconciliation: `observed` bytes on `dev` held by this container's processes per NVML.
  void reconcile(int dev, uint64_t observed);
  // Whether `pid` holds a slot (belongs to this container).
  bool has_process(uint32_t pid) const;
  // Frees the slots of processes that died without cleaning up; returns how many.
  int reclaim_dead();

  RegionLayout& layout() { return *r_; }
  const RegionLayout& layout() const { return *r_; }
  bool shared() const { return shared_; }

 private:
  explicit SharedRegion(RegionLayout* r, bool shared, bool hang)
      : r_(r), shared_(shared), hang_(hang) {}
  void lock();
  void unlock();
  void recompute_totals();  // after a lock owner died: slots are the source of truth
  void free_slot(RegionSlot& s);
  int claim_slot();
  // getpid(), cached and refreshed in a fork's child (a system call per launch would cost more
  // than the rest of the hook).
  static pid_t process_id() {
    const pid_t p = pid_.load(std::memory_order_relaxed);
    return p != 0 ? p : init_process_id();
  }
  static pid_t init_process_id();
  static inline std::atomic<pid_t> pid_{0};
  RegionLayout* r_;
  bool shared_;
  bool hang_;
  std::atomic<int> slot_{-1};
  std::atomic<pid_t> slot_pid_{0};
};

// True when `pid` no longer runs the process that started at `start_time` (dead, a zombie, or
// a reused pid).
bool process_gone(pid_t pid, uint64_t start_time);
uint64_t process_start_time(pid_t pid);

}  // namespace slicelab::interposer
