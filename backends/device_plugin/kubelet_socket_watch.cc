#include "backends/device_plugin/kubelet_socket_watch.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace slicelab::device_plugin {

namespace {

constexpr uint32_t kWatchMask = IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM |
                                IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR |
                                IN_DONT_FOLLOW;  // a link in its place is not watched through

std::runtime_error system_error(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

}  // namespace

KubeletSocketWatch::KubeletSocketWatch(std::filesystem::path dir, std::string kubelet_socket_name)
    : dir_(std::move(dir)), kubelet_socket_name_(std::move(kubelet_socket_name)) {
  inotify_fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (inotify_fd_ < 0) throw system_error("inotify_init1");
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    const auto error = system_error("eventfd");
    ::close(inotify_fd_);
    throw error;
  }
  if (!add_watch()) {
    const auto error = system_error("cannot watch the device plugin folder " + dir_.string());
    ::close(wake_fd_);
    ::close(inotify_fd_);
    throw error;
  }
}

KubeletSocketWatch::~KubeletSocketWatch() {
  ::close(wake_fd_);
  ::close(inotify_fd_);
}

bool KubeletSocketWatch::add_watch() {
  watch_ = ::inotify_add_watch(inotify_fd_, dir_.c_str(), kWatchMask);
  return watch_ >= 0;
}

void KubeletSocketWatch::wake() {
  const uint64_t one = 1;
  // A full counter (never in practice) still leaves the eventfd readable: nothing to handle.
  [[maybe_unused]] const auto written = ::write(wake_fd_, &one, sizeof one);
}

void KubeletSocketWatch::read_events(FolderEvents& events) {
  // Aligned as inotify_event requires; big enough for many events per read.
  alignas(inotify_event) std::array<char, std::size_t{16} << 10> buffer{};
  for (;;) {
    const ssize_t n = ::read(inotify_fd_, buffer.data(), buffer.size());
    if (n <= 0) return;  // EAGAIN: drained
    for (ssize_t at = 0; at < n;) {
      inotify_event event{};
      std::memcpy(&event, buffer.data() + at, sizeof event);
      const char* name_start = buffer.data() + at + sizeof event;
      const std::string name(name_start, strnlen(name_start, event.len));
      at += static_cast<ssize_t>(sizeof event + event.len);
      if ((event.mask & IN_Q_OVERFLOW) != 0) {
        events.kubelet_created = true;
      } else if ((event.mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) != 0) {
        if (watch_ >= 0 && (event.mask & IN_IGNORED) == 0) {
          ::inotify_rm_watch(inotify_fd_, watch_);
        }
        watch_ = -1;
      } else if ((event.mask & (IN_CREATE | IN_MOVED_TO)) != 0) {
        if (name == kubelet_socket_name_) events.kubelet_created = true;
      } else if ((event.mask & (IN_DELETE | IN_MOVED_FROM)) != 0) {
        if (std::find(events.removed.begin(), events.removed.end(), name) == events.removed.end()) {
          events.removed.push_back(name);
        }
      }
    }
  }
}

FolderEvents KubeletSocketWatch::wait(std::chrono::milliseconds timeout) {
  FolderEvents events;
  if (watch_ < 0) {
    if (add_watch()) {
      // Whatever happened while the folder was gone is lost: assume a new kubelet.
      events.kubelet_created = true;
      return events;
    }
    if (timeout.count() < 0 || timeout > std::chrono::seconds(1)) timeout = std::chrono::seconds(1);
  }
  std::array<pollfd, 2> fds{pollfd{inotify_fd_, POLLIN, 0}, pollfd{wake_fd_, POLLIN, 0}};
  const int wait_ms =
      timeout.count() < 0
          ? -1
          : static_cast<int>(std::min<int64_t>(timeout.count(), int64_t{24} * 3600 * 1000));
  const int ready = ::poll(fds.data(), fds.size(), wait_ms);
  if (ready <= 0) return events;  // timeout or EINTR: the caller loops
  if ((fds[1].revents & POLLIN) != 0) {
    uint64_t count = 0;
    [[maybe_unused]] const auto got = ::read(wake_fd_, &count, sizeof count);
    events.woken = true;
  }
  if ((fds[0].revents & POLLIN) != 0) read_events(events);
  return events;
}

}  // namespace slicelab::device_plugin
