#include "backends/interposer/shared_region.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>

#include "backends/limiter/memory_ledger.h"

namespace slicelab::interposer {

uint64_t process_start_time(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[1024];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  // Fields after the command name (which may hold spaces) start after the last ')'.
  const char* p = std::strrchr(buf, ')');
  if (!p) return 0;
  // Field 3 is the state; field 22 the start time: 19 more fields after the state.
  char state = p[2];
  if (state == 'Z' || state == 'X') return UINT64_MAX;  // a zombie holds no GPU memory
  const char* q = p + 2;
  for (int field = 3; field < 22 && q; ++field) {
    q = std::strchr(q, ' ');
    if (q) ++q;
  }
  return q ? std::strtoull(q, nullptr, 10) : 0;
}

bool process_gone(pid_t pid, uint64_t start_time) {
  if (pid <= 0) return true;
  if (::kill(pid, 0) == -1 && errno == ESRCH) return true;
  const uint64_t now_start = process_start_time(pid);
  if (now_start == UINT64_MAX) return true;
  // Without /proc (another pid namespace), trust kill(): a live pid keeps its share.
  return now_start != 0 && start_time != 0 && now_start != start_time;
}

namespace {

void init_layout(RegionLayout* r, const Config& cfg) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
  // Robust: when an owner dies, the next locker gets EOWNERDEAD instead of waiting forever.
  pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&r->lock, &a);
  pthread_mutexattr_destroy(&a);
  for (int d = 0; d < kMaxDevices; ++d) {
    r->devices[d].cap.store(cfg.devices[d].memory_bytes);
    r->devices[d].sm_percent.store(static_cast<uint32_t>(cfg.devices[d].sm_percent));
  }
  r->magic = kRegionMagic;
  r->version = kRegionVersion;
}

RegionLayout* map_private(const Config& cfg) {
  void* m = mmap(nullptr, sizeof(RegionLayout), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                 -1, 0);
  if (m == MAP_FAILED) return nullptr;
  auto* r = static_cast<RegionLayout*>(m);
  init_layout(r, cfg);
  r->state.store(2);
  return r;
}

void sleep_ms(int ms) {
  timespec ts{0, ms * 1'000'000L};
  nanosleep(&ts, nullptr);
}

}  // namespace

SharedRegion* SharedRegion::open(const std::string& path, const Config& cfg, std::string* warning) {
  const bool hang = cfg.test_hang_in_lock;
  if (path.empty()) return new SharedRegion(map_private(cfg), false, hang);
  auto fail = [&](const std::string& why) {
    *warning = "cannot use shared region " + path + " (" + why +
               "); caps hold per process, not per container";
    return new SharedRegion(map_private(cfg), false, hang);
  };
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return fail(std::strerror(errno));
  // Processes of one container may run under different user ids: the file must stay writable
  // for all of them whatever the umask.
  fchmod(fd, 0666);
  struct stat st {};
  if (fstat(fd, &st) == 0 && st.st_size < static_cast<off_t>(sizeof(RegionLayout)) &&
      ftruncate(fd, sizeof(RegionLayout)) != 0) {
    ::close(fd);
    return fail(std::strerror(errno));
  }
  void* m = mmap(nullptr, sizeof(RegionLayout), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) return fail(std::strerror(errno));
  auto* r = static_cast<RegionLayout*>(m);
  uint32_t expected = 0;
  if (r->state.compare_exchange_strong(expected, 1)) {
    init_layout(r, cfg);
    r->state.store(2);
  } else {
    // Another process is initialising: a few ms at most. A creator killed right here leaves
    // state 1; after 2 s we stop waiting and keep to ourselves rather than hang the program.
    for (int i = 0; i < 2000 && r->state.load() != 2; ++i) sleep_ms(1);
    if (r->state.load() != 2) {
      munmap(m, sizeof(RegionLayout));
      return fail("never initialised; delete the file");
    }
  }
  if (r->magic != kRegionMagic || r->version != kRegionVersion) {
    munmap(m, sizeof(RegionLayout));
    return fail("written by another version");
  }
  // The caps the region shows are the latest configured ones (stats display only; every
  // process checks against its own configured cap).
  for (int d = 0; d < kMaxDevices; ++d) {
    r->devices[d].cap.store(cfg.devices[d].memory_bytes);
    r->devices[d].sm_percent.store(static_cast<uint32_t>(cfg.devices[d].sm_percent));
  }
  return new SharedRegion(r, true, hang);
}

SharedRegion* SharedRegion::open_readonly(const std::string& path, std::string* error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = path + ": " + std::strerror(errno);
    return nullptr;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(sizeof(RegionLayout))) {
    ::close(fd);
    *error = path + ": not a slicelab interposer region (too small)";
    return nullptr;
  }
  void* m = mmap(nullptr, sizeof(RegionLayout), PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) {
    *error = path + ": " + std::strerror(errno);
    return nullptr;
  }
  auto* r = static_cast<RegionLayout*>(m);
  if (r->magic != kRegionMagic || r->version != kRegionVersion) {
    munmap(m, sizeof(RegionLayout));
    *error = path + ": not a slicelab interposer region (bad magic or version)";
    return nullptr;
  }
  return new SharedRegion(r, true, false);
}

void SharedRegion::lock() {
  const int rc = pthread_mutex_lock(&r_->lock);
  if (rc == EOWNERDEAD) {
    // The owner died inside the critical section: its slot updates may be half done, so the
    // totals are rebuilt from the slots, and its slot is reclaimed with the other dead ones.
    recompute_totals();
    pthread_mutex_consistent(&r_->lock);
  }
}

void SharedRegion::unlock() {
  pthread_mutex_unlock(&r_->lock);
}

void SharedRegion::recompute_totals() {
  for (int d = 0; d < kMaxDevices; ++d) {
    uint64_t res = 0, com = 0;
    for (auto& s : r_->slots) {
      if (s.pid.load() == 0) continue;
      res += s.reserved[d].load();
      com += s.committed[d].load();
    }
    r_->devices[d].reserved.store(res);
    r_->devices[d].committed.store(com);
  }
}

void SharedRegion::free_slot(RegionSlot& s) {
  for (int d = 0; d < kMaxDevices; ++d) {
    auto sub = [](std::atomic<uint64_t>& total, uint64_t v) {
      const uint64_t t = total.load();
      total.store(t >= v ? t - v : 0);
    };
    sub(r_->devices[d].reserved, s.reserved[d].exchange(0));
    sub(r_->devices[d].committed, s.committed[d].exchange(0));
    s.launches[d].store(0);
    s.throttled_ns[d].store(0);
  }
  s.start_time.store(0);
  s.pid.store(0);
}

int SharedRegion::reclaim_dead() {
  int n = 0;
  lock();
  for (auto& s : r_->slots) {
    const int32_t pid = s.pid.load();
    if (pid != 0 && pid != getpid() && process_gone(pid, s.start_time.load())) {
      free_slot(s);
      ++n;
    }
  }
  unlock();
  return n;
}

namespace {
// Tallies change only under the region lock, so a plain load and store (no locked instruction)
// is enough; readers outside the lock (stats, cuMemGetInfo) see each value whole.
void add(std::atomic<uint64_t>& a, uint64_t v) {
  a.store(a.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
}
void sub(std::atomic<uint64_t>& a, uint64_t v) {
  const uint64_t x = a.load(std::memory_order_relaxed);
  a.store(x >= v ? x - v : 0, std::memory_order_relaxed);
}
}  // namespace

pid_t SharedRegion::init_process_id() {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(nullptr, nullptr, [] { pid_.store(getpid()); }); });
  const pid_t p = getpid();
  pid_.store(p, std::memory_order_relaxed);
  return p;
}

int SharedRegion::claim_slot() {
  const pid_t me = process_id();
  // One claim per process: threads racing here must all end up in the same slot, or a
  // reservation made in one slot would be committed from another and never balance out.
  static std::mutex claim;
  std::lock_guard<std::mutex> g(claim);
  int s = slot_.load(std::memory_order_acquire);
  if (s >= 0 && slot_pid_.load(std::memory_order_relaxed) == me) return s;
  reclaim_dead();
  lock();
  s = -1;
  for (int i = 0; i < kMaxSlots && s < 0; ++i) {
    if (r_->slots[i].pid.load() == 0) {
      r_->slots[i].start_time.store(process_start_time(me));
      r_->slots[i].pid.store(me);
      s = i;
    }
  }
  unlock();
  // All slots taken: share the last one rather than fail (statistics merge, caps still hold).
  if (s < 0) s = kMaxSlots - 1;
  slot_pid_.store(me, std::memory_order_relaxed);
  slot_.store(s, std::memory_order_release);
  return s;
}

bool SharedRegion::reserve(int dev, uint64_t bytes, uint64_t cap) {
  RegionSlot& s = r_->slots[slot()];
  for (int attempt = 0; attempt < 2; ++attempt) {
    lock();
    if (hang_) {
      std::fputs("slicelab-interposer: test hook: holding the region lock\n", stderr);
      for (;;) pause();
    }
    RegionDevice& d = r_->devices[dev];
    // The same admission rule as the simulator's ledger (backends/limiter), on the totals.
    limiter::LedgerState st{cap, d.reserved.load(), d.committed.load(), d.external.load()};
    const bool ok = limiter::try_reserve(st, bytes);
    if (ok) {
      // Slot first, total second: if we die in between, the EOWNERDEAD rebuild from the slots
      // gives the right total.
      add(s.reserved[dev], bytes);
      add(d.reserved, bytes);
    }
    unlock();
    if (ok) return true;
    // Over the cap: a dead process may still hold a share. Reclaim and try once more.
    if (attempt == 0 && reclaim_dead() == 0) return false;
  }
  return false;
}

void SharedRegion::commit(int dev, uint64_t bytes) {
  RegionSlot& s = r_->slots[slot()];
  lock();
  const uint64_t m = std::min(bytes, s.reserved[dev].load());
  sub(s.reserved[dev], m);
  add(s.committed[dev], m);
  sub(r_->devices[dev].reserved, m);
  add(r_->devices[dev].committed, m);
  unlock();
}

void SharedRegion::cancel(int dev, uint64_t bytes) {
  RegionSlot& s = r_->slots[slot()];
  lock();
  const uint64_t m = std::min(bytes, s.reserved[dev].load());
  sub(s.reserved[dev], m);
  sub(r_->devices[dev].reserved, m);
  unlock();
}

void SharedRegion::release(int dev, uint64_t bytes) {
  RegionSlot& s = r_->slots[slot()];
  lock();
  // Clamped: a free we never saw allocated (or a double free) must not underflow the tally.
  const uint64_t m = std::min(bytes, s.committed[dev].load());
  sub(s.committed[dev], m);
  sub(r_->devices[dev].committed, m);
  unlock();
}

uint64_t SharedRegion::used(int dev) const {
  return r_->devices[dev].reserved.load(std::memory_order_relaxed) +
         r_->devices[dev].committed.load(std::memory_order_relaxed) +
         r_->devices[dev].external.load(std::memory_order_relaxed);
}

void SharedRegion::reconcile(int dev, uint64_t observed) {
  lock();
  RegionDevice& d = r_->devices[dev];
  // The simulator's rule (backends/limiter): what NVML sees beyond our committed bytes.
  limiter::LedgerState st{d.cap.load(), d.reserved.load(), d.committed.load(), 0};
  limiter::reconcile(st, observed);
  d.external.store(st.external);
  unlock();
}

bool SharedRegion::has_process(uint32_t pid) const {
  for (const auto& s : r_->slots)
    if (static_cast<uint32_t>(s.pid.load(std::memory_order_relaxed)) == pid) return true;
  return false;
}

}  // namespace slicelab::interposer
