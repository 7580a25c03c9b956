// The accounting region a container's processes share (file-backed mmap, a lock with a bounded
// wait, per-process slots, the container's caps), refused unless the file is ours and sound.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "backends/interposer/config.h"

namespace slicelab::interposer {

constexpr uint64_t kRegionMagic = 0x534c4943454c4142ULL;  // "SLICELAB"
constexpr uint32_t kRegionVersion = 3;
constexpr int kMaxSlots = 256;
// Linux's largest possible pid (PID_MAX_LIMIT): a pid or tid above it is a forged or torn value.
constexpr int64_t kPidMaxLimit = int64_t{4} * 1024 * 1024;
// How long a lock may be held by a live process before the waiter gives up (fails closed). Each
// critical section takes microseconds; only a stopped process or a forged owner holds it longer.
constexpr int64_t kLockWaitNs = 2'000'000'000;

struct RegionDevice {
  // The container's caps, written once by the process that created the region and never after
  // (atomics only so that `slicelab interposer stats` reads them like the rest).
  std::atomic<uint64_t> cap;  // bytes (UINT64_MAX: none)
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
  uint32_t index;                    // its own position: checks that the image is laid out as ours
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
  uint32_t device_count;  // kMaxDevices
  uint64_t total_size;    // sizeof(RegionLayout)
  uint32_t slot_count;    // kMaxSlots
  uint32_t other_sm_percent;
  // Caps of devices beyond the table (what the global variables say): their allocations are
  // refused while one is set, since they cannot be counted.
  uint64_t other_cap;
  // The lock: 0 when free, else the holder's pid << 32 | its thread id. Not a pthread mutex: a
  // mutex's owner field, forged or torn, hangs every locker; this word is checked (plausible
  // pid, process alive) and waited on for a bounded time.
  std::atomic<uint64_t> lock;
  RegionDevice devices[kMaxDevices];
  RegionSlot slots[kMaxSlots];
};

// Several processes map the same bytes: every field must sit where every build expects it.
static_assert(std::is_standard_layout_v<RegionLayout>);
static_assert(std::atomic<uint64_t>::is_always_lock_free);
static_assert(std::atomic<uint32_t>::is_always_lock_free);

// Why a region image (a region file's bytes) cannot be used, as one phrase, or "" when it can.
// Pure: no system calls, any bytes of any length (a fuzz target calls it). With `totals` it
// also checks that each device's totals are the sums of its slots, which holds whenever the
// lock is free or held by the caller.
std::string region_image_error(const unsigned char* image, size_t size, bool totals);
// Writes a fresh region for `cfg` (the creator's configuration) into `out` (sizeof(RegionLayout)
// bytes of zeroed memory).
void init_region_image(void* out, const Config& cfg);

class SharedRegion {
 public:
  // Maps the region at `path`, creating it (0600, or 0660 for cfg.region_group) when missing.
  // An empty path maps private memory: caps hold per process, as configured. A path that is a
  // symbolic link, not a regular file, not ours, open to other users, of the wrong size or with
  // unsound contents is refused without being modified: *warning then says why (one line), and
  // allocations on every capped device are refused (fail closed: the cap is never exceeded).
  // A configuration that failed closed (cfg.fail_closed) opens no file: private and refused.
  // With caps from a caps file (cfg.caps_file), the container's cap is the lower of the
  // region's and the file's, so a region written with higher caps does not raise them.
  // A shared region is guarded against the file shrinking under the mapping (a truncate by a
  // process of the same uid): the access that would raise SIGBUS finds zeroed memory instead,
  // the region is refused from then on, and one line says so.
  static std::unique_ptr<SharedRegion> open(const std::string& path, const Config& cfg,
                                            std::string* warning);
  // For `slicelab interposer stats`: maps an existing region read-only; nullptr and *error.
  static std::unique_ptr<SharedRegion> open_readonly(const std::string& path, std::string* error);
  ~SharedRegion();
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;

  // This process's slot (claimed on first use, re-claimed after fork). Inline: every launch
  // counts itself in its slot.
  int slot() {
    const int s = slot_.load(std::memory_order_acquire);
    if (s >= 0 && slot_pid_.load(std::memory_order_relaxed) == process_id()) [[likely]]
      return s;
    return claim_slot();
  }
  // The memory cap that applies to this process on device `dev` (any ordinal >= 0): the
  // container's, or this process's own where that is lower. UINT64_MAX: none.
  uint64_t memory_cap(int dev) const { return dev < kMaxDevices ? cap_[dev] : other_cap_; }
  // The compute share this process paces device `dev` (< kMaxDevices) to, in percent.
  int sm_percent(int dev) const { return sm_[dev]; }
  // Two-phase accounting on device `dev` (< kMaxDevices): the container's total against the
  // container's cap, and this process's own usage against its own lower cap, if any.
  bool reserve(int dev, uint64_t bytes);
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
  // The file was refused, or lost since (shrunk, rewritten): capped devices refuse every
  // allocation.
  bool refused() const { return refused_.load(std::memory_order_relaxed); }

 private:
  SharedRegion(RegionLayout* r, bool shared, const Config& cfg);
  // Takes the region lock, waiting at most kLockWaitNs for a live holder; a dead or implausible
  // holder's lock is taken over and the totals rebuilt. False: not taken (fail closed).
  bool lock();
  bool lock_slow(uint64_t me);
  void unlock();
  void recompute_totals();  // after a lock owner died: slots are the source of truth
  void free_slot(RegionSlot& s);
  int claim_slot();
  void set_caps(const Config& cfg);
  // The region has shrunk or been rewritten under us: refused from now on (said once).
  void lose(const char* why);
  // getpid(), cached and refreshed in a fork's child (a system call per launch would cost more
  // than the rest of the hook).
  static pid_t process_id() {
    const pid_t p = pid_.load(std::memory_order_relaxed);
    return p != 0 ? p : init_process_id();
  }
  static pid_t init_process_id();
  static inline std::atomic<pid_t> pid_{0};
  RegionLayout* r_;
  size_t mapped_;
  bool shared_;
  // Set from the SIGBUS handler too (region_guard.h): lock-free, so async-signal-safe.
  std::atomic<bool> refused_{false};
  bool opened_ = false;  // checked and in use (lock timeouts are reported from then on)
  bool hang_;
  uint64_t cap_[kMaxDevices];      // effective: min(container, own)
  uint64_t own_cap_[kMaxDevices];  // this process's own; checked on its slot when lower
  // The container's, read once at open: a region rewritten later cannot raise it.
  uint64_t container_cap_[kMaxDevices];
  int guard_ = -1;  // this mapping's entry in the SIGBUS guard, or -1
  int sm_[kMaxDevices];
  uint64_t other_cap_;
  std::atomic<uint64_t> stuck_owner_{0};  // a lock word we waited kLockWaitNs for in vain
  std::atomic<int> slot_{-1};
  std::atomic<pid_t> slot_pid_{0};
};

// True when `pid` no longer runs the process that started at `start_time` (dead, a zombie, or
// a reused pid).
bool process_gone(pid_t pid, uint64_t start_time);
uint64_t process_start_time(pid_t pid);

}  // namespace slicelab::interposer
