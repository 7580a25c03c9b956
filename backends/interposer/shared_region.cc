#include "backends/interposer/shared_region.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>

#include "backends/interposer/region_guard.h"
#include "limiter/memory_ledger.h"

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
  // Never hand kill() a value <= 0: it would address a process group, or every process.
  if (pid <= 0 || pid > kPidMaxLimit) return true;
  if (::kill(pid, 0) == -1 && errno == ESRCH) return true;
  const uint64_t now_start = process_start_time(pid);
  if (now_start == UINT64_MAX) return true;
  // Without /proc (another pid namespace), trust kill(): a live pid keeps its share.
  return now_start != 0 && start_time != 0 && now_start != start_time;
}

// ---- the pure image checks ----

namespace {

template <class T>
T read_at(const unsigned char* image, size_t offset) {
  T v;
  std::memcpy(&v, image + offset, sizeof v);
  return v;
}

bool plausible_pid(int64_t pid) {
  return pid > 0 && pid <= kPidMaxLimit;
}

std::string str(uint64_t v) {
  return std::to_string(v);
}

}  // namespace

std::string region_image_error(const unsigned char* image, size_t size, bool totals) {
  if (!image || size != sizeof(RegionLayout))
    return "it is " + str(size) + " bytes, a region is " + str(sizeof(RegionLayout));
  // Fields are read at their offsets from the bytes, as they were written by another process:
  // nothing is assumed about them until checked here.
  if (read_at<uint64_t>(image, offsetof(RegionLayout, magic)) != kRegionMagic)
    return "it does not start with a slicelab region's magic number";
  if (const auto v = read_at<uint32_t>(image, offsetof(RegionLayout, version)); v != kRegionVersion)
    return "it is a version " + str(v) + " region; this interposer reads version " +
           str(kRegionVersion);
  if (const auto v = read_at<uint64_t>(image, offsetof(RegionLayout, total_size));
      v != sizeof(RegionLayout))
    return "it records a size of " + str(v) + " bytes, not " + str(sizeof(RegionLayout));
  if (const auto v = read_at<uint32_t>(image, offsetof(RegionLayout, device_count));
      v != kMaxDevices)
    return "it records " + str(v) + " devices, not " + str(kMaxDevices);
  if (const auto v = read_at<uint32_t>(image, offsetof(RegionLayout, slot_count)); v != kMaxSlots)
    return "it records " + str(v) + " process slots, not " + str(kMaxSlots);
  if (const auto v = read_at<uint32_t>(image, offsetof(RegionLayout, other_sm_percent));
      v < 1 || v > 100)
    return "its compute cap for further devices, " + str(v) + "%, is not 1-100";
  if (read_at<uint64_t>(image, offsetof(RegionLayout, other_cap)) == 0)
    return "its memory cap for further devices is 0 bytes";
  if (const auto owner = read_at<uint64_t>(image, offsetof(RegionLayout, lock));
      owner != 0 && (!plausible_pid(static_cast<int64_t>(owner >> 32)) ||
                     !plausible_pid(static_cast<int64_t>(owner & 0xffffffffU))))
    return "its lock names pid " + str(owner >> 32) + " thread " + str(owner & 0xffffffffU) +
           " as owner, which is no process";
  for (int d = 0; d < kMaxDevices; ++d) {
    const size_t at = offsetof(RegionLayout, devices) + d * sizeof(RegionDevice);
    if (read_at<uint64_t>(image, at + offsetof(RegionDevice, cap)) == 0)
      return "its memory cap for device " + str(d) + " is 0 bytes";
    if (const auto sm = read_at<uint32_t>(image, at + offsetof(RegionDevice, sm_percent));
        sm < 1 || sm > 100)
      return "its compute cap for device " + str(d) + ", " + str(sm) + "%, is not 1-100";
  }
  uint64_t reserved[kMaxDevices] = {}, committed[kMaxDevices] = {};
  for (int i = 0; i < kMaxSlots; ++i) {
    const size_t at = offsetof(RegionLayout, slots) + i * sizeof(RegionSlot);
    if (const auto idx = read_at<uint32_t>(image, at + offsetof(RegionSlot, index));
        idx != static_cast<uint32_t>(i))
      return "process slot " + str(i) + " records index " + str(idx);
    const auto pid = read_at<int32_t>(image, at + offsetof(RegionSlot, pid));
    if (pid != 0 && !plausible_pid(pid))
      return "process slot " + str(i) + " names pid " + std::to_string(pid) +
             ", which is no process";
    for (int d = 0; d < kMaxDevices; ++d) {
      const auto r = read_at<uint64_t>(
          image, at + offsetof(RegionSlot, reserved) + static_cast<size_t>(d) * 8);
      const auto c = read_at<uint64_t>(
          image, at + offsetof(RegionSlot, committed) + static_cast<size_t>(d) * 8);
      if (pid == 0 && (r != 0 || c != 0))
        return "process slot " + str(i) + " is free but holds memory on device " + str(d);
      // Sums that wrap around would make any total look right.
      if (__builtin_add_overflow(reserved[d], r, &reserved[d]) ||
          __builtin_add_overflow(committed[d], c, &committed[d]))
        return "the memory held on device " + str(d) + " overflows";
    }
  }
  if (totals) {
    for (int d = 0; d < kMaxDevices; ++d) {
      const size_t at = offsetof(RegionLayout, devices) + d * sizeof(RegionDevice);
      if (read_at<uint64_t>(image, at + offsetof(RegionDevice, reserved)) != reserved[d] ||
          read_at<uint64_t>(image, at + offsetof(RegionDevice, committed)) != committed[d])
        return "device " + str(d) + "'s totals are not the sums of its process slots";
    }
  }
  return "";
}

void init_region_image(void* out, const Config& cfg) {
  auto* r = static_cast<RegionLayout*>(out);
  r->magic = kRegionMagic;
  r->version = kRegionVersion;
  r->device_count = kMaxDevices;
  r->total_size = sizeof(RegionLayout);
  r->slot_count = kMaxSlots;
  // A 0% or out-of-range share cannot come from load_config; clamp anyway, so that what is
  // written always passes the check above.
  auto pct = [](int p) { return static_cast<uint32_t>(p >= 1 && p <= 100 ? p : 100); };
  auto bytes = [](uint64_t b) { return b != 0 ? b : UINT64_MAX; };
  r->other_sm_percent = pct(cfg.other.sm_percent);
  r->other_cap = bytes(cfg.other.memory_bytes);
  r->lock.store(0);
  for (int d = 0; d < kMaxDevices; ++d) {
    r->devices[d].cap.store(bytes(cfg.devices[d].memory_bytes));
    r->devices[d].sm_percent.store(pct(cfg.devices[d].sm_percent));
  }
  for (int i = 0; i < kMaxSlots; ++i) r->slots[i].index = static_cast<uint32_t>(i);
}

// ---- opening ----

namespace {

RegionLayout* map_private(const Config& cfg) {
  void* m = mmap(nullptr, sizeof(RegionLayout), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                 -1, 0);
  if (m == MAP_FAILED) return nullptr;
  init_region_image(m, cfg);
  return static_cast<RegionLayout*>(m);
}

std::string octal(mode_t m) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0%03o", static_cast<unsigned>(m & 07777));
  return buf;
}

std::string errno_text(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

// Whether the file behind `st` may be used as this process's region: "" or why not.
std::string ownership_error(const struct stat& st, const Config& cfg) {
  if (S_ISLNK(st.st_mode)) return "it is a symbolic link";
  if (!S_ISREG(st.st_mode)) return "it is not a regular file";
  if (st.st_mode & 0007) return "other users may open it (mode " + octal(st.st_mode) + ")";
  const bool group_ok = cfg.region_gid >= 0 && st.st_gid == static_cast<gid_t>(cfg.region_gid);
  // Group permissions are harmless only when the group is the container's own.
  if ((st.st_mode & 0070) && !group_ok)
    return "group " + str(st.st_gid) + " may open it (mode " + octal(st.st_mode) +
           ") and is not the configured region group";
  if (st.st_uid != geteuid() && !group_ok)
    return "it belongs to uid " + str(st.st_uid) + ", not to this process's uid " + str(geteuid());
  if (st.st_size != static_cast<off_t>(sizeof(RegionLayout)))
    return "it is " + str(static_cast<uint64_t>(st.st_size)) + " bytes, a region is " +
           str(sizeof(RegionLayout));
  return "";
}

// A directory anyone may write to without the sticky bit lets anyone delete or replace the
// region between two processes' starts, and a fresh region forgets the container's usage.
std::string directory_error(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return errno_text(dir.c_str());
  if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
    return "its directory " + dir +
           " is writable by every user without the sticky bit, so anyone could replace it";
  return "";
}

// Creates a fresh region next to `path` under a private name and links it into place: a file at
// `path` is therefore always complete, and link() never replaces what is there. 1: created and
// mapped into *out; 0: someone else's is there already; -1: failed (*why).
int create_region(const std::string& path, const Config& cfg, RegionLayout** out,
                  std::string* why) {
  static std::atomic<unsigned> counter{0};
  const std::string tmp =
      path + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter.fetch_add(1));
  const bool group = cfg.region_gid >= 0;
  const int fd =
      ::open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, group ? 0660 : 0600);
  if (fd < 0) {
    *why = errno_text(("cannot create " + tmp).c_str());
    return -1;
  }
  auto fail = [&](const std::string& w) {
    *why = w;
    ::close(fd);
    ::unlink(tmp.c_str());
    return -1;
  };
  // The only chmod: on the file this process has just created (O_EXCL) and not yet published,
  // because the umask may have taken the group's bits. An existing file is never chmod-ed.
  if (group && (fchown(fd, static_cast<uid_t>(-1), static_cast<gid_t>(cfg.region_gid)) != 0 ||
                fchmod(fd, 0660) != 0))
    return fail(errno_text(
        ("cannot give it to group " + str(static_cast<uint64_t>(cfg.region_gid))).c_str()));
  if (ftruncate(fd, sizeof(RegionLayout)) != 0) return fail(errno_text("cannot size it"));
  void* m = mmap(nullptr, sizeof(RegionLayout), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) return fail(errno_text("cannot map it"));
  init_region_image(m, cfg);
  const int linked = ::link(tmp.c_str(), path.c_str());
  const int link_errno = errno;
  ::close(fd);
  ::unlink(tmp.c_str());
  if (linked == 0) {
    *out = static_cast<RegionLayout*>(m);
    return 1;
  }
  munmap(m, sizeof(RegionLayout));
  if (link_errno == EEXIST) return 0;
  errno = link_errno;
  *why = errno_text(("cannot link it to " + path).c_str());
  return -1;
}

// Opens the existing region at `path` without following a link and without side effects on a
// file that is not one (no write, no chmod, no truncate), and maps it. nullptr and *why, or
// *missing when there is no file.
RegionLayout* open_existing(const std::string& path, const Config& cfg, bool* missing,
                            std::string* why) {
  *missing = false;
  struct stat lst {};
  if (::lstat(path.c_str(), &lst) != 0) {
    if (errno == ENOENT) *missing = true;
    *why = errno_text("cannot stat it");
    return nullptr;
  }
  // Checked before opening, so that a device or FIFO is never opened at all; then again on the
  // descriptor, which is what counts.
  if (std::string e = ownership_error(lst, cfg); !e.empty()) {
    *why = e;
    return nullptr;
  }
  const int fd = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT) *missing = true;
    *why = errno == ELOOP ? std::string("it is a symbolic link") : errno_text("cannot open it");
    return nullptr;
  }
  struct stat st {};
  std::string e = fstat(fd, &st) != 0 ? errno_text("cannot stat it") : ownership_error(st, cfg);
  if (e.empty() && (st.st_dev != lst.st_dev || st.st_ino != lst.st_ino))
    e = "it was replaced while being opened";
  if (!e.empty()) {
    ::close(fd);
    *why = e;
    return nullptr;
  }
  void* m = mmap(nullptr, sizeof(RegionLayout), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) {
    *why = errno_text("cannot map it");
    return nullptr;
  }
  return static_cast<RegionLayout*>(m);
}

const unsigned char* bytes_of(const RegionLayout* r) {
  return reinterpret_cast<const unsigned char*>(r);
}

void sleep_ns(long ns) {
  timespec ts{0, ns};
  nanosleep(&ts, nullptr);
}

int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

// Whether the lock word `owner` names a thread that can no longer release it: implausible (a
// torn or forged word), or a process that is gone, or a thread its live process no longer has.
bool owner_gone(uint64_t owner) {
  const auto pid = static_cast<int64_t>(owner >> 32);
  const auto tid = static_cast<int64_t>(owner & 0xffffffffU);
  if (!plausible_pid(pid) || !plausible_pid(tid)) return true;
  if (process_gone(static_cast<pid_t>(pid), 0)) return true;
  char proc[64], task[96];
  std::snprintf(proc, sizeof proc, "/proc/%lld", static_cast<long long>(pid));
  std::snprintf(task, sizeof task, "%s/task/%lld", proc, static_cast<long long>(tid));
  struct stat st {};
  // Without /proc for that pid (another pid namespace), the live process is trusted.
  return ::stat(proc, &st) == 0 && ::stat(task, &st) != 0 && errno == ENOENT;
}

void say_once(std::atomic<bool>& said, const std::string& line) {
  if (!said.exchange(true)) std::fprintf(stderr, "slicelab-interposer: %s\n", line.c_str());
}

}  // namespace

SharedRegion::SharedRegion(RegionLayout* r, bool shared, const Config& cfg)
    : r_(r), mapped_(sizeof(RegionLayout)), shared_(shared), hang_(cfg.test_hang_in_lock) {
  set_caps(cfg);
}

SharedRegion::~SharedRegion() {
  unguard_mapping(guard_);
  if (r_) munmap(r_, mapped_);
}

void SharedRegion::set_caps(const Config& cfg) {
  // The region holds the container's configuration (the first process's); this process's own
  // may only lower what applies to itself.
  for (int d = 0; d < kMaxDevices; ++d) {
    own_cap_[d] = cfg.devices[d].memory_bytes;
    const uint64_t container = r_->devices[d].cap.load(std::memory_order_relaxed);
    cap_[d] = own_cap_[d] < container ? own_cap_[d] : container;
    // With a caps file every process of the container reads the same caps: they are the
    // container's, and a region that says more (written by whoever could write it) is held to
    // them.
    container_cap_[d] = cfg.caps_file.empty() ? container : cap_[d];
    const int sm = static_cast<int>(r_->devices[d].sm_percent.load(std::memory_order_relaxed));
    sm_[d] = cfg.devices[d].sm_percent < sm ? cfg.devices[d].sm_percent : sm;
  }
  other_cap_ = cfg.other.memory_bytes < r_->other_cap ? cfg.other.memory_bytes : r_->other_cap;
}

std::unique_ptr<SharedRegion> SharedRegion::open(const std::string& path, const Config& cfg,
                                                 std::string* warning) {
  auto private_region = [&] {
    std::unique_ptr<SharedRegion> r(new SharedRegion(map_private(cfg), false, cfg));
    r->opened_ = true;
    return r;
  };
  if (!cfg.fail_closed.empty()) {
    // No caps known: the container's region is not touched, and nothing is allocated.
    auto r = private_region();
    r->refused_ = true;
    return r;
  }
  if (path.empty()) return private_region();
  auto refuse = [&](const std::string& why) {
    *warning = "cannot use shared region " + path + " (" + why +
               "); allocations on capped devices get CUDA_ERROR_OUT_OF_MEMORY";
    auto r = private_region();
    r->refused_ = true;
    return r;
  };
  if (std::string e = directory_error(path); !e.empty()) return refuse(e);
  RegionLayout* r = nullptr;
  bool created = false;
  std::string why;
  // Two rounds: a file that appears between our look and our link is opened on the second.
  for (int round = 0; round < 2 && !r; ++round) {
    bool missing = false;
    r = open_existing(path, cfg, &missing, &why);
    if (r || !missing) break;
    const int c = create_region(path, cfg, &r, &why);
    if (c < 0) return refuse(why);
    created = c == 1;
  }
  if (!r) return refuse(why);
  std::unique_ptr<SharedRegion> region(new SharedRegion(r, true, cfg));
  region->guard_ = guard_mapping(
      r, sizeof(RegionLayout), &region->refused_,
      "slicelab-interposer: the shared region " + path +
          " shrank under this process (truncated?); its accounting is lost: allocations on "
          "capped devices get CUDA_ERROR_OUT_OF_MEMORY from now on\n");
  if (created) {
    region->opened_ = true;
    return region;
  }
  // Another process's region: its fixed part first, then, under the lock (so that no one is
  // half-way through an update), the slots against the totals.
  if (std::string e = region_image_error(bytes_of(r), sizeof(RegionLayout), false); !e.empty())
    return refuse(e);
  if (!region->lock()) {
    const uint64_t owner = r->lock.load();
    return refuse("its lock has been held by live pid " + str(owner >> 32) + " for over " +
                  str(kLockWaitNs / 1'000'000'000) + " s");
  }
  std::string e = region_image_error(bytes_of(r), sizeof(RegionLayout), true);
  region->unlock();
  if (!e.empty()) return refuse(e);
  region->opened_ = true;
  return region;
}

std::unique_ptr<SharedRegion> SharedRegion::open_readonly(const std::string& path,
                                                          std::string* error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    *error = path + ": " + (errno == ELOOP ? "a symbolic link" : std::strerror(errno));
    return nullptr;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_size != static_cast<off_t>(sizeof(RegionLayout))) {
    ::close(fd);
    *error = path + ": not a slicelab interposer region (not a regular file of " +
             str(sizeof(RegionLayout)) + " bytes)";
    return nullptr;
  }
  void* m = mmap(nullptr, sizeof(RegionLayout), PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) {
    *error = path + ": " + std::strerror(errno);
    return nullptr;
  }
  auto* r = static_cast<RegionLayout*>(m);
  if (std::string e = region_image_error(bytes_of(r), sizeof(RegionLayout), false); !e.empty()) {
    munmap(m, sizeof(RegionLayout));
    *error = path + ": not a usable slicelab interposer region (" + e + ")";
    return nullptr;
  }
  std::unique_ptr<SharedRegion> region(new SharedRegion(r, true, Config{}));
  region->guard_ = guard_mapping(r, sizeof(RegionLayout), &region->refused_,
                                 "slicelab: the shared region " + path +
                                     " shrank while being read (truncated?); its figures are "
                                     "lost\n");
  return region;
}

// ---- the lock ----

namespace {

// This thread's lock word, pid << 32 | tid, cached per thread and renewed in a fork's child.
struct OwnerWord {
  pid_t pid = 0;
  uint64_t word = 0;
};
thread_local OwnerWord t_owner;

}  // namespace

void SharedRegion::lose(const char* why) {
  refused_.store(true, std::memory_order_relaxed);
  static std::atomic<bool> said{false};
  say_once(said, std::string("the shared region ") + why +
                     "; its accounting is lost: allocations on capped devices get "
                     "CUDA_ERROR_OUT_OF_MEMORY from now on");
}

bool SharedRegion::lock() {
  const pid_t pid = process_id();
  if (t_owner.pid != pid) [[unlikely]] {
    const auto tid = static_cast<uint32_t>(syscall(SYS_gettid));
    t_owner = {pid, (static_cast<uint64_t>(static_cast<uint32_t>(pid)) << 32) | tid};
  }
  uint64_t expected = 0;
  if (r_->lock.compare_exchange_strong(expected, t_owner.word, std::memory_order_acquire))
      [[likely]]
    return true;
  return lock_slow(t_owner.word);
}

bool SharedRegion::lock_slow(uint64_t me) {
  // A holder we have already waited the full time for, still there: refuse at once rather than
  // make every allocation wait again (one wait per holder, not per call).
  if (const uint64_t stuck = stuck_owner_.load(std::memory_order_relaxed);
      stuck != 0 && r_->lock.load(std::memory_order_relaxed) == stuck && !owner_gone(stuck))
    return false;
  const int64_t start = monotonic_ns();
  // A liveness check costs system calls: the first after a millisecond of waiting (a holder's
  // critical section takes microseconds), then once a millisecond.
  int64_t next_check = start + 1'000'000;
  for (int spin = 1;; ++spin) {
    uint64_t cur = r_->lock.load(std::memory_order_relaxed);
    if (cur == 0) {
      if (r_->lock.compare_exchange_weak(cur, me, std::memory_order_acquire)) return true;
      continue;
    }
    if (spin >= 128 || spin % 32 == 0) {
      const int64_t now = monotonic_ns();
      if (now >= next_check) {
        // Our own word can only be a stale or forged one: this code never locks twice in a
        // thread.
        if (cur == me || owner_gone(cur)) {
          if (r_->lock.compare_exchange_strong(cur, me, std::memory_order_acquire)) {
            // The holder may have died half-way through an update: the slots are the truth.
            recompute_totals();
            return true;
          }
          continue;
        }
        next_check = now + 1'000'000;
      }
      if (now - start > kLockWaitNs) {
        stuck_owner_.store(cur, std::memory_order_relaxed);
        static std::atomic<bool> said{false};
        // While opening, the refusal of the whole region says it instead.
        if (opened_)
          say_once(said, "the shared region's lock has been held by live pid " + str(cur >> 32) +
                             " for over " + str(kLockWaitNs / 1'000'000'000) +
                             " s; allocations that need it are refused");
        return false;
      }
    }
    if (spin >= 128)
      sleep_ns(20'000);
    else if (spin >= 64)
      sched_yield();
  }
}

void SharedRegion::unlock() {
  r_->lock.store(0, std::memory_order_release);
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
  if (!lock()) return 0;
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
  s = -1;
  if (lock()) {
    for (int i = 0; i < kMaxSlots && s < 0; ++i) {
      if (r_->slots[i].pid.load() == 0) {
        r_->slots[i].start_time.store(process_start_time(me));
        r_->slots[i].pid.store(me);
        s = i;
      }
    }
    unlock();
  }
  // All slots taken (or the lock unavailable): share the last one rather than fail (statistics
  // merge, the container's caps still hold).
  if (s < 0) s = kMaxSlots - 1;
  slot_pid_.store(me, std::memory_order_relaxed);
  slot_.store(s, std::memory_order_release);
  return s;
}

bool SharedRegion::reserve(int dev, uint64_t bytes) {
  // A refused region knows nothing of the container: a capped device's allocation could exceed
  // the container's cap unseen, so none is made (fail closed).
  // A region rewritten under us (truncated and grown back, overwritten) no longer holds the
  // container's usage: from then on it is refused like one that shrank.
  if (shared_ && __atomic_load_n(&r_->magic, __ATOMIC_RELAXED) != kRegionMagic &&
      !refused_.load(std::memory_order_relaxed)) [[unlikely]]
    lose("was rewritten under this process (its magic number is gone)");
  if (refused_.load(std::memory_order_relaxed) && cap_[dev] != UINT64_MAX) return false;
  RegionSlot& s = r_->slots[slot()];
  const uint64_t container_cap = container_cap_[dev];
  const uint64_t own = own_cap_[dev];
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!lock()) return false;
    if (hang_) {
      std::fputs("slicelab-interposer: test hook: holding the region lock\n", stderr);
      for (;;) pause();
    }
    RegionDevice& d = r_->devices[dev];
    // The same admission rule as the simulator's ledger (limiter), on the totals.
    limiter::LedgerState st{container_cap, d.reserved.load(), d.committed.load(),
                            d.external.load()};
    bool ok = limiter::try_reserve(st, bytes);
    if (ok && own < container_cap) {
      // This process's own lower cap, on what its slot holds.
      limiter::LedgerState mine{own, s.reserved[dev].load(), s.committed[dev].load(), 0};
      ok = limiter::try_reserve(mine, bytes);
    }
    if (ok) {
      // Slot first, total second: if we die in between, the rebuild from the slots gives the
      // right total.
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

// When the lock cannot be had, commit, cancel and release leave the tallies as they are: the
// bytes stay counted, which errs towards the cap, never past it.
void SharedRegion::commit(int dev, uint64_t bytes) {
  RegionSlot& s = r_->slots[slot()];
  if (!lock()) return;
  const uint64_t m = std::min(bytes, s.reserved[dev].load());
  sub(s.reserved[dev], m);
  add(s.committed[dev], m);
  sub(r_->devices[dev].reserved, m);
  add(r_->devices[dev].committed, m);
  unlock();
}

void SharedRegion::cancel(int dev, uint64_t bytes) {
  RegionSlot& s = r_->slots[slot()];
  if (!lock()) return;
  const uint64_t m = std::min(bytes, s.reserved[dev].load());
  sub(s.reserved[dev], m);
  sub(r_->devices[dev].reserved, m);
  unlock();
}

void SharedRegion::release(int dev, uint64_t bytes) {
  RegionSlot& s = r_->slots[slot()];
  if (!lock()) return;
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
  if (!lock()) return;
  RegionDevice& d = r_->devices[dev];
  // The simulator's rule (limiter): what NVML sees beyond our committed bytes.
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
