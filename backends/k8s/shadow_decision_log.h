// `serve extender --shadow --record DIR`: shadow mode's decisions written to DIR's
// decisions-NNNNNN.jsonl (docs/recording-format.md#decisions) by a thread of its own, so that
// the request path only copies a preformatted line into a bounded queue.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backends/k8s/decision_line.h"
#include "backends/k8s/gpu_allocation_snapshot.h"
#include "backends/k8s/shadow_decision_sink.h"

namespace slicelab::k8s {

struct DecisionLogOptions {
  // Lines waiting for the writer, each at most kDecisionLineBytes, allocated once: past it a
  // decision is dropped and counted, the request path never waits for the disk.
  size_t queue_lines = 4096;
  // The writer wakes this often, or when the queue is half full, and writes what is queued.
  std::chrono::milliseconds wake_every{100};
  std::chrono::milliseconds sync_every{1000};      // fdatasync at least this often while writing
  uint64_t rotate_bytes = uint64_t{64} << 20;      // a segment is closed past this size
  std::chrono::seconds rotate_every{3600};         // or this age
  std::chrono::milliseconds figures_every{10000};  // a FIGURES line this often
};

// The longest decision line: a pod's namespace (63), name (253), UID (36), node name (253) and
// its GPUs fit with room to spare; a longer line (a hostile request) is dropped and counted.
inline constexpr size_t kDecisionLineBytes = 1024;

class ShadowDecisionLog final : public ShadowDecisionSink {
 public:
  // Reads shadow mode's running figures for a FIGURES line (nullopt: none written).
  using FiguresSource = std::function<std::optional<DecisionFiguresLine>()>;

  // Opens DIR's last decisions segment to append to (a torn last line is cut first), or creates
  // decisions-000001.jsonl. DIR must exist. Throws std::runtime_error naming the file.
  ShadowDecisionLog(std::filesystem::path dir, std::string policy, DecisionLogOptions options = {});
  ~ShadowDecisionLog() override;  // stop()
  ShadowDecisionLog(const ShadowDecisionLog&) = delete;
  ShadowDecisionLog& operator=(const ShadowDecisionLog&) = delete;

  // Before start(); called on the writer thread, never under the queue's lock.
  void set_figures_source(FiguresSource source) { figures_source_ = std::move(source); }
  // Writes the START line and starts the writer thread.
  void start();
  // Writes what is queued and a last FIGURES line, syncs, closes; joins the writer. Idempotent.
  void stop();

  void decided(const ShadowDecision& decision) noexcept override;
  // Decision lines written, dropped, write errors: running totals for /metrics.
  DecisionLogFigures figures() const;
  // Blocks until every line queued before the call is written (tests, and the report's
  // end-to-end run), at most `timeout`; true when it was.
  bool flush(std::chrono::milliseconds timeout);
  const std::filesystem::path& segment() const { return segment_path_; }

 private:
  void run();
  // Copies out up to `batch_` lines from the queue; returns how many (under `lock`).
  size_t take(std::unique_lock<std::mutex>& lock);
  // Writes one line to the current segment (rotating first when due); false when it failed
  // (counted in write_errors).
  bool write_line(const char* data, size_t len);
  void open_segment(bool resume);
  void rotate_if_due(size_t next_len);
  void sync();
  void write_figures();

  const std::filesystem::path dir_;
  const std::string policy_;
  const DecisionLogOptions options_;
  FiguresSource figures_source_;

  mutable std::mutex mu_;  // guards the queue and the counters below
  std::condition_variable wake_, written_;
  std::vector<char> slots_;     // queue_lines × kDecisionLineBytes
  std::vector<uint16_t> lens_;  // each slot's line length
  size_t head_ = 0, count_ = 0;
  uint64_t queued_ = 0, done_ = 0;  // lines ever queued / ever taken and written (or failed)
  DecisionLogFigures totals_;
  bool stopping_ = false;

  // The writer thread's own (no lock).
  std::vector<char> batch_;
  std::vector<uint16_t> batch_lens_;
  std::filesystem::path segment_path_;
  int fd_ = -1;
  unsigned segment_number_ = 0;
  uint64_t segment_bytes_ = 0;
  std::chrono::steady_clock::time_point segment_opened_, last_sync_, last_figures_;
  bool dirty_ = false;
  bool resumed_ = false;
  std::thread thread_;
};

}  // namespace slicelab::k8s
