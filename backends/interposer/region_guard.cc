#include "backends/interposer/region_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>

namespace slicelab::interposer {
namespace {

constexpr size_t kMaxMessage = 512;

// Read by the handler: written before `start` is published (release), cleared `start` first.
struct Entry {
  std::atomic<char*> start{nullptr};
  std::atomic<size_t> size{0};
  std::atomic<std::atomic<bool>*> lost{nullptr};
  std::atomic<bool> said{false};
  size_t message_size = 0;
  char message[kMaxMessage];
};
Entry g_entries[kMaxGuardedMappings];
std::mutex g_table_mutex;  // registrations only; the handler takes no lock
struct sigaction g_previous {};

void chain(int sig, siginfo_t* info, void* context) {
  if ((g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_sigaction) {
    g_previous.sa_sigaction(sig, info, context);
    return;
  }
  if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN &&
      g_previous.sa_handler) {
    g_previous.sa_handler(sig);
    return;
  }
  // The default action: for a fault, returning runs the access again, which faults again and
  // ends the process as it would have without us; a signal sent by kill() is sent again.
  signal(sig, SIG_DFL);
  if (!info || info->si_code <= 0) raise(sig);
}

void on_sigbus(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const auto addr = reinterpret_cast<uintptr_t>(info ? info->si_addr : nullptr);
  for (Entry& e : g_entries) {
    char* const start = e.start.load(std::memory_order_acquire);
    const size_t size = e.size.load(std::memory_order_relaxed);
    const auto first = reinterpret_cast<uintptr_t>(start);
    if (!start || addr < first || addr - first >= size) continue;
    void* m =
        mmap(start, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (m == MAP_FAILED) break;  // cannot help: as if unguarded
    if (std::atomic<bool>* lost = e.lost.load(std::memory_order_relaxed))
      lost->store(true, std::memory_order_relaxed);
    if (!e.said.exchange(true)) {
      const ssize_t n = write(STDERR_FILENO, e.message, e.message_size);
      (void)n;
    }
    errno = saved_errno;
    return;
  }
  errno = saved_errno;
  chain(sig, info, context);
}

void install() {
  struct sigaction sa {};
  sa.sa_sigaction = on_sigbus;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigaction(SIGBUS, &sa, &g_previous);
}

}  // namespace

int guard_mapping(void* start, size_t size, std::atomic<bool>* lost, const std::string& message) {
  static std::once_flag once;
  std::call_once(once, install);
  const std::lock_guard lock(g_table_mutex);
  for (int i = 0; i < kMaxGuardedMappings; ++i) {
    Entry& e = g_entries[i];
    if (e.start.load(std::memory_order_relaxed) != nullptr) continue;
    e.message_size = std::min(message.size(), kMaxMessage);
    std::memcpy(e.message, message.data(), e.message_size);
    e.said.store(false, std::memory_order_relaxed);
    e.lost.store(lost, std::memory_order_relaxed);
    e.size.store(size, std::memory_order_relaxed);
    e.start.store(static_cast<char*>(start), std::memory_order_release);
    return i;
  }
  return -1;
}

void unguard_mapping(int entry) {
  if (entry < 0 || entry >= kMaxGuardedMappings) return;
  const std::lock_guard lock(g_table_mutex);
  g_entries[entry].start.store(nullptr, std::memory_order_release);
  g_entries[entry].lost.store(nullptr, std::memory_order_relaxed);
}

}  // namespace slicelab::interposer
