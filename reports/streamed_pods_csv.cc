#include "reports/streamed_pods_csv.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "reports/output_values.h"
#include "reports/pods_csv_rows.h"
#include "sim/parallel/cpu_limit.h"

namespace slicelab {

namespace {

// Rows formatted per read: a buffer of about 120 KB, written out before the next read. It is
// held while the run is at its peak memory, so it is kept small (8,192 rows held 1-2 MB more).
constexpr size_t kRowsPerRead = 1024;

}  // namespace

StreamedPodsCsv::StreamedPodsCsv(const std::filesystem::path& parent, const Scenario& scenario,
                                 std::string_view first_policy)
    : scenario_(scenario), policy_(csv_field(first_policy)) {
  fd_ = ::open(parent.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);  // NOLINT(*-vararg)
  if (fd_ >= 0) thread_ = std::thread([this] { stream_first_run(); });
}

StreamedPodsCsv::~StreamedPodsCsv() {
  feed_.close();
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) ::close(fd_);
}

void StreamedPodsCsv::write_all(std::string_view bytes) {
  while (!bytes.empty() && error_ == 0) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = n < 0 ? errno : EIO;
      return;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

void StreamedPodsCsv::stream_first_run() {
  const bool restarts = scenario_.engine.restart.enabled();
  write_all(pods_csv_header(scenario_));
  fmt::memory_buffer buf;
  size_t from = 0;
  while (error_ == 0) {
    const size_t to = feed_.read(
        from, kRowsPerRead, [&](const OutcomeFeed::Live& live, size_t begin, size_t end) {
          for (size_t i = begin; i < end; ++i) {
            const PodOutcome& o = live.outcomes[i];
            const auto gpus = o.gpu_count == 0 ? std::span<const uint16_t>{}
                                               : live.gpus.subspan(o.gpu_begin, o.gpu_count);
            // A final pod completed: it has no reason (OutcomeFeed).
            append_pod_row(buf, policy_, scenario_.pods[i], o, gpus, {}, restarts);
          }
        });
    if (to == from) break;
    write_all(std::string_view(buf.data(), buf.size()));
    buf.clear();
    from = to;
    streamed_.store(from, std::memory_order_relaxed);
  }
}

void StreamedPodsCsv::finish(std::span<const RunResult> runs) {
  feed_.close();  // the run closed it as it ended; this stops a reader the run never fed
  if (thread_.joinable()) thread_.join();
  if (fd_ < 0) return;
  const size_t streamed = streamed_.load(std::memory_order_relaxed);
  if (runs.empty() || runs.front().pods.size() < streamed)
    throw std::logic_error("pods.csv: the results are not those of the streamed run");
  if (error_ == 0)
    write_pod_rows([&](std::string_view block) { write_all(block); }, scenario_, runs, streamed,
                   default_jobs());
  if (error_ != 0)
    throw std::runtime_error(fmt::format("cannot write pods.csv: {}", std::strerror(error_)));
  finished_ = true;
}

bool StreamedPodsCsv::link_to(const std::filesystem::path& path) const {
  if (!finished_) return false;
  // An O_TMPFILE file is given a name through its /proc/self/fd entry (open(2)).
  const std::string self = fmt::format("/proc/self/fd/{}", fd_);
  return ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) == 0;
}

}  // namespace slicelab
