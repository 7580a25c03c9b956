// RecordCommand (record_command.h): the options, the recording's folder, the watches and the
// loop that syncs, rotates, reports progress and waits for the end.
#include "cli/record_command.h"

#include <fmt/format.h>
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <optional>

#include "backends/k8s/api_config.h"
#include "backends/k8s/cluster_recording.h"
#include "backends/k8s/recording_writer.h"
#include "cli/usage_error.h"
#include "workloads/go_duration.h"
#include "workloads/kube/kube_quantity.h"

namespace slicelab {
namespace {

// The version `slicelab --version` prints (cli/main.cc), written into the header.
constexpr const char* kRecorderVersion = "slicelab 0.1.0";
// The loop's period: the writer's sync (at least once a second), the progress line, the end.
constexpr auto kRecordTick = std::chrono::milliseconds(250);

std::chrono::milliseconds record_duration_option(const std::string& option,
                                                 const std::string& text) {
  std::string error;
  const std::optional<double> s = parse_go_duration(text, error);
  if (!s || *s <= 0 || *s > 100.0 * 365 * 86400)
    throw UsageError(
        fmt::format("{}: expected a duration such as 90s, 30m, 1h or 7d, found "
                    "'{}'{}",
                    option, text, error.empty() ? "" : ": " + error));
  return std::chrono::milliseconds(static_cast<int64_t>(*s * 1000.0));
}

uint64_t record_size_option(const std::string& option, const std::string& text) {
  std::string error;
  const std::optional<KubeQuantity> q = parse_quantity(text, error);
  const std::optional<int64_t> bytes = q && !q->negative ? q->scaled_up(0) : std::nullopt;
  if (!bytes || static_cast<uint64_t>(*bytes) < k8s::RecordingWriterOptions::kMinRotateBytes ||
      static_cast<uint64_t>(*bytes) > k8s::RecordingWriterOptions::kMaxRotateBytes)
    throw UsageError(fmt::format("{}: expected a size from 1Mi to 4Gi, found '{}'{}", option, text,
                                 error.empty() ? "" : ": " + error));
  return static_cast<uint64_t>(*bytes);
}

std::string record_progress_text(const k8s::RecorderStats& s) {
  return fmt::format(
      "slicelab record: {} events recorded, {} pods and {} nodes tracked, segment "
      "events-{:06}.jsonl",
      s.events, s.pods, s.nodes, s.segment);
}

}  // namespace

RecordCommand::RecordCommand(CLI::App& app)
    : cmd_(app.add_subcommand(
          "record", "Record a live cluster's pods and nodes (LIST and WATCH) into a folder")) {
  cmd_->add_option("-o,--out", out_,
                   "Recording folder: created (its parent must exist), or resumed when it holds "
                   "a recording")
      ->required();
  cmd_->add_option("--kubeconfig", kubeconfig_, "Kubeconfig file of the cluster");
  cmd_->add_flag("--in-cluster", in_cluster_, "Use the pod's service account");
  cmd_->add_option("--api-server", api_server_, "API server URL (with --token-file)");
  cmd_->add_option("--token-file", token_file_, "Bearer token file for --api-server");
  cmd_->add_option("--namespace", namespace_, "Record the pods of this namespace (default: all)");
  cmd_->add_option("--selector", selector_,
                   "Record the pods matching this label selector (as kubectl's -l)");
  cmd_->add_option("--duration", duration_,
                   "Stop after this long (90s, 30m, 8h, 7d; default: until SIGINT or SIGTERM)");
  cmd_->add_option("--rotate-size", rotate_size_,
                   "Start a new segment past this size (1Mi .. 4Gi, default 64Mi)");
  cmd_->add_option("--rotate-every", rotate_every_,
                   "Start a new segment after this long (default 1h)");
  cmd_->add_flag("-q,--quiet", quiet_, "Print no progress, only errors");
}

int RecordCommand::run() const {
  // A peer that closes while the API client writes must be an error, not the end of the
  // process.
  std::signal(SIGPIPE, SIG_IGN);
  // SIGINT and SIGTERM end the recording: blocked before any thread starts (the watches inherit
  // the mask) and awaited by the loop below, so that no handler and no global are needed.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  const bool api = !kubeconfig_.empty() || in_cluster_ || !api_server_.empty();
  if (!api)
    throw UsageError(
        "give the cluster: --kubeconfig, --in-cluster or --api-server with --token-file");
  if (!api_server_.empty() && (!kubeconfig_.empty() || in_cluster_))
    throw UsageError("--api-server goes alone: not with --kubeconfig or --in-cluster");
  if (!kubeconfig_.empty() && in_cluster_)
    throw UsageError("give one of --kubeconfig and --in-cluster");
  std::optional<std::chrono::milliseconds> duration;
  if (!duration_.empty()) duration = record_duration_option("--duration", duration_);
  k8s::RecordingWriterOptions writer_options;
  writer_options.rotate_bytes = record_size_option("--rotate-size", rotate_size_);
  writer_options.rotate_every = std::chrono::duration_cast<std::chrono::seconds>(
      record_duration_option("--rotate-every", rotate_every_));
  if (writer_options.rotate_every.count() < 1) throw UsageError("--rotate-every: at least 1s");

  k8s::ApiConfig config;
  if (!kubeconfig_.empty()) {
    config = k8s::load_kubeconfig(kubeconfig_);
  } else if (in_cluster_) {
    config = k8s::in_cluster_config();
  } else {
    config.server = api_server_;
    config.token_file = token_file_;
    config.source = "--api-server " + api_server_;
  }

  k8s::ClusterRecordingOptions options;
  options.pod_namespace = namespace_;
  options.selector = selector_;
  options.version = kRecorderVersion;
  options.writer = writer_options;
  const std::string server = config.server;
  k8s::ClusterRecording recording(out_, std::move(config), options);
  if (!quiet_) {
    fmt::print(stderr, "slicelab record: {} {} ({} events, {} pods and {} nodes live), from {}\n",
               recording.resumed() ? "resuming" : "recording into", out_,
               recording.events_read_back(), recording.pods_live_at_start(),
               recording.nodes_live_at_start(), server);
  }
  recording.start();

  const bool tty = ::isatty(2) != 0;
  const auto started = std::chrono::steady_clock::now();
  auto last_progress = started;
  bool printed = false;
  int exit_code = 0;
  std::string api_error;  // the watches' newest error, printed once when it changes
  for (;;) {
    const timespec wait{0, std::chrono::nanoseconds(kRecordTick).count()};
    const int signal = sigtimedwait(&stop_signals, nullptr, &wait);
    if (signal > 0) break;
    recording.tick();
    const auto now = std::chrono::steady_clock::now();
    if (const std::string error = recording.error(); !error.empty()) {
      fmt::print(stderr, "{}error: the recording stopped: {}\n", printed && tty ? "\n" : "", error);
      exit_code = 1;
      break;
    }
    if (duration && now - started >= *duration) break;
    // A refused LIST (403: the RBAC of docs/record.md is missing) or an unreachable server is
    // retried with back-off; say so, once per new error, rather than record nothing in silence.
    if (std::string e = recording.last_api_error(); !quiet_ && e != api_error) {
      api_error = std::move(e);
      if (!api_error.empty()) {
        fmt::print(stderr, "{}slicelab record: the API server: {}\n", printed && tty ? "\n" : "",
                   api_error.substr(0, 300));
      }
    }
    // Silent for the first second, then rewritten in place on a terminal (5 times a second) or
    // a plain line every 5 s, as cli/progress_line.h does.
    const auto period = tty ? std::chrono::milliseconds(200) : std::chrono::milliseconds(5000);
    if (!quiet_ && now - started >= std::chrono::seconds(1) && now - last_progress >= period) {
      fmt::print(stderr, "{}{}", tty ? "\r" : "", record_progress_text(recording.stats()));
      if (!tty) fmt::print(stderr, "\n");
      std::fflush(stderr);
      printed = true;
      last_progress = now;
    }
  }
  // The watches first (no event arrives after), then the last sync and close.
  recording.stop();
  if (exit_code == 0) {
    if (const std::string error = recording.error(); !error.empty()) {
      fmt::print(stderr, "error: the recording could not be closed: {}\n", error);
      exit_code = 1;
    }
  }
  if (!quiet_ && exit_code == 0)
    fmt::print(stderr, "{}{}\n", printed && tty ? "\r" : "",
               record_progress_text(recording.stats()));
  return exit_code;
}

}  // namespace slicelab
