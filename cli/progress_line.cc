#include "cli/progress_line.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace slicelab {

ProgressLine::ProgressLine(std::string label, size_t tasks, bool quiet)
    : label_(std::move(label)), start_(std::chrono::steady_clock::now()), tty_(::isatty(2) != 0) {
  for (size_t i = 0; i < tasks; ++i) done_.push_back(std::make_unique<std::atomic<double>>(0.0));
  if (!quiet) thread_ = std::thread([this] { loop(); });
}

ProgressLine::~ProgressLine() {
  {
    const std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (printed_) std::fprintf(stderr, tty_ ? "\r%s\n" : "%s\n", render().c_str());
}

void ProgressLine::update(size_t task, double fraction) {
  if (task < done_.size()) done_[task]->store(fraction, std::memory_order_relaxed);
}

std::string ProgressLine::render() const {
  double sum = 0;
  size_t finished = 0;
  for (const auto& d : done_) {
    const double v = d->load(std::memory_order_relaxed);
    sum += v;
    finished += v >= 1.0 ? 1 : 0;
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return fmt::format("{}: {:5.1f}% ({}/{} runs done, {:.1f}s)", label_,
                     done_.empty() ? 100.0 : 100.0 * sum / static_cast<double>(done_.size()),
                     finished, done_.size(), elapsed);
}

void ProgressLine::loop() {
  using namespace std::chrono_literals;
  std::unique_lock lock(mu_);
  if (cv_.wait_for(lock, 1s, [this] { return stop_; })) return;
  const auto period = tty_ ? 200ms : 5s;
  do {
    std::fprintf(stderr, tty_ ? "\r%s" : "%s\n", render().c_str());
    std::fflush(stderr);
    printed_ = true;
  } while (!cv_.wait_for(lock, period, [this] { return stop_; }));
}

}  // namespace slicelab
