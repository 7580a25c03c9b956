#include "backends/k8s/shadow_decision_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace slicelab::k8s {
namespace {

constexpr size_t kDecisionLogBatch = 64;  // lines copied out of the queue per lock

std::string decision_segment_name(unsigned n) {
  char digits[16];
  const auto r = std::to_chars(digits, digits + sizeof digits, n);
  std::string s(digits, r.ptr);
  if (s.size() < 6) s.insert(0, 6 - s.size(), '0');
  return "decisions-" + s + ".jsonl";
}

// The number of `decisions-NNNNNN.jsonl`, or 0 for any other name.
unsigned decision_segment_number(const std::string& name) {
  constexpr std::string_view kPrefix = "decisions-", kSuffix = ".jsonl";
  if (name.size() < kPrefix.size() + 6 + kSuffix.size() || !name.starts_with(kPrefix) ||
      !name.ends_with(kSuffix))
    return 0;
  const std::string_view digits(name.data() + kPrefix.size(),
                                name.size() - kPrefix.size() - kSuffix.size());
  unsigned n = 0;
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  return r.ec == std::errc() && r.ptr == digits.data() + digits.size() ? n : 0;
}

[[noreturn]] void decision_log_fail(const std::filesystem::path& p, const std::string& what) {
  throw std::runtime_error(p.string() + ": " + what + ": " + std::strerror(errno));
}

// Makes a new directory entry durable (a segment created just before a crash is not lost).
void decision_log_sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

}  // namespace

ShadowDecisionLog::ShadowDecisionLog(std::filesystem::path dir, std::string policy,
                                     DecisionLogOptions options)
    : dir_(std::move(dir)),
      policy_(std::move(policy)),
      options_(options),
      slots_(std::max<size_t>(options.queue_lines, 1) * kDecisionLineBytes),
      lens_(std::max<size_t>(options.queue_lines, 1)),
      batch_(kDecisionLogBatch * kDecisionLineBytes),
      batch_lens_(kDecisionLogBatch) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    segment_number_ =
        std::max(segment_number_, decision_segment_number(entry.path().filename().string()));
  }
  if (ec) throw std::runtime_error(dir_.string() + ": " + ec.message());
  resumed_ = segment_number_ > 0;
  if (!resumed_) segment_number_ = 1;
  open_segment(resumed_);
}

ShadowDecisionLog::~ShadowDecisionLog() {
  stop();
  if (fd_ >= 0) ::close(fd_);
}

void ShadowDecisionLog::open_segment(bool resume) {
  segment_path_ = dir_ / decision_segment_name(segment_number_);
  const int flags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | (resume ? 0 : O_CREAT | O_EXCL);
  const int fd = ::open(segment_path_.c_str(), flags, 0644);
  if (fd < 0) decision_log_fail(segment_path_, resume ? "cannot reopen" : "cannot create");
  // The descriptor is closed on every way out but success.
  const auto fail = [&](const char* what, int error) {
    ::close(fd);
    errno = error;
    decision_log_fail(segment_path_, what);
  };
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail("cannot stat", errno);
  if (!S_ISREG(st.st_mode)) fail("not a regular file", EINVAL);
  uint64_t size = static_cast<uint64_t>(st.st_size);
  if (resume && size > 0) {
    // A last line without its '\n' is a torn write: cut back to the last whole line.
    const int rfd = ::open(segment_path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (rfd < 0) fail("cannot read", errno);
    std::array<char, 4096> buf{};
    uint64_t end = size;
    uint64_t keep = 0;
    bool found = false;
    while (end > 0 && !found) {
      const uint64_t from = end > buf.size() ? end - buf.size() : 0;
      const ssize_t n = ::pread(rfd, buf.data(), end - from, static_cast<off_t>(from));
      if (n <= 0) break;
      for (ssize_t i = n - 1; i >= 0; --i) {
        if (buf[static_cast<size_t>(i)] == '\n') {
          keep = from + static_cast<uint64_t>(i) + 1;
          found = true;
          break;
        }
      }
      end = from;
    }
    ::close(rfd);
    if (keep != size) {
      if (::ftruncate(fd, static_cast<off_t>(keep)) != 0)
        fail("cannot cut its torn last line", errno);
      size = keep;
    }
  }
  if (!resume) decision_log_sync_directory(dir_);
  fd_ = fd;
  segment_bytes_ = size;
  segment_opened_ = std::chrono::steady_clock::now();
}

void ShadowDecisionLog::start() {
  const std::string line = format_start_line(std::chrono::system_clock::now(), resumed_, policy_);
  write_line(line.data(), line.size());
  last_sync_ = last_figures_ = std::chrono::steady_clock::now();
  thread_ = std::thread([this] { run(); });
}

void ShadowDecisionLog::stop() {
  {
    const std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void ShadowDecisionLog::decided(const ShadowDecision& decision) noexcept {
  // Formatted outside the lock, on the stack: the queue's lock is held for one copy.
  std::array<char, kDecisionLineBytes> line;  // NOLINT(cppcoreguidelines-pro-type-member-init)
  const size_t len = format_decision_line(line, std::chrono::system_clock::now(), decision);
  bool wake = false;
  {
    const std::lock_guard lock(mu_);
    if (len == 0 || count_ == lens_.size() || stopping_) {
      ++totals_.dropped;
      return;
    }
    const size_t slot = (head_ + count_) % lens_.size();
    std::memcpy(slots_.data() + slot * kDecisionLineBytes, line.data(), len);
    lens_[slot] = static_cast<uint16_t>(len);
    ++count_;
    ++queued_;
    // The writer wakes on its own timer; a half-full queue wakes it at once.
    wake = count_ == lens_.size() / 2 + 1;
  }
  if (wake) wake_.notify_one();
}

DecisionLogFigures ShadowDecisionLog::figures() const {
  const std::lock_guard lock(mu_);
  return totals_;
}

bool ShadowDecisionLog::flush(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  const uint64_t target = queued_;
  wake_.notify_one();
  return written_.wait_for(lock, timeout, [&] { return done_ >= target; });
}

size_t ShadowDecisionLog::take(std::unique_lock<std::mutex>& /*lock*/) {
  const size_t n = std::min(count_, batch_lens_.size());
  for (size_t i = 0; i < n; ++i) {
    const size_t slot = (head_ + i) % lens_.size();
    std::memcpy(batch_.data() + i * kDecisionLineBytes, slots_.data() + slot * kDecisionLineBytes,
                lens_[slot]);
    batch_lens_[i] = lens_[slot];
  }
  head_ = (head_ + n) % lens_.size();
  count_ -= n;
  return n;
}

void ShadowDecisionLog::run() {
  std::unique_lock lock(mu_);
  for (;;) {
    wake_.wait_for(lock, options_.wake_every,
                   [&] { return stopping_ || count_ > lens_.size() / 2 || done_ < queued_; });
    while (count_ > 0) {
      const size_t n = take(lock);
      lock.unlock();
      int64_t written = 0;
      for (size_t i = 0; i < n; ++i) {
        written += write_line(batch_.data() + i * kDecisionLineBytes, batch_lens_[i]) ? 1 : 0;
      }
      lock.lock();
      done_ += n;
      totals_.lines += written;
    }
    written_.notify_all();
    const bool stop = stopping_;
    lock.unlock();
    const auto now = std::chrono::steady_clock::now();
    if (stop || now - last_figures_ >= options_.figures_every) write_figures();
    if (dirty_ && (stop || now - last_sync_ >= options_.sync_every)) sync();
    lock.lock();
    if (stop && count_ == 0) return;
  }
}

void ShadowDecisionLog::write_figures() {
  last_figures_ = std::chrono::steady_clock::now();
  if (!figures_source_) return;
  std::optional<DecisionFiguresLine> f = figures_source_();
  if (!f) return;
  {
    const std::lock_guard lock(mu_);
    f->dropped = static_cast<uint64_t>(totals_.dropped);
  }
  const std::string line = format_figures_line(std::chrono::system_clock::now(), *f);
  write_line(line.data(), line.size());
}

void ShadowDecisionLog::rotate_if_due(size_t next_len) {
  const bool too_big = segment_bytes_ > 0 && segment_bytes_ + next_len > options_.rotate_bytes;
  const bool too_old = segment_bytes_ > 0 &&
                       std::chrono::steady_clock::now() - segment_opened_ >= options_.rotate_every;
  if (!too_big && !too_old) return;
  sync();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ++segment_number_;
  try {
    open_segment(/*resume=*/false);
  } catch (const std::runtime_error&) {
    // Lines are counted as write errors; the next line tries the same segment again.
    fd_ = -1;
    --segment_number_;
  }
}

// One write() per line (a torn write can only be the last line); a short write is finished.
bool ShadowDecisionLog::write_line(const char* data, size_t len) {
  rotate_if_due(len);
  bool ok = fd_ >= 0;
  size_t off = 0;
  while (ok && off < len) {
    const ssize_t n = ::write(fd_, data + off, len - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = false;
      break;
    }
    off += static_cast<size_t>(n);
  }
  segment_bytes_ += off;
  dirty_ = dirty_ || off > 0;
  if (!ok) {
    const std::lock_guard lock(mu_);
    ++totals_.write_errors;
  }
  return ok;
}

void ShadowDecisionLog::sync() {
  last_sync_ = std::chrono::steady_clock::now();
  if (fd_ < 0 || !dirty_) return;
  dirty_ = false;
  if (::fdatasync(fd_) != 0) {
    const std::lock_guard lock(mu_);
    ++totals_.write_errors;
  }
}

}  // namespace slicelab::k8s
