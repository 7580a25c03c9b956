// The progress line on stderr: silent for the first second, then one line rewritten in place
// (or a plain line every few seconds when stderr is not a terminal). Safe to feed from threads.
// A quiet one (-q) prints nothing at all and starts no thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace slicelab {

class ProgressLine {
 public:
  ProgressLine(std::string label, size_t tasks, bool quiet = false);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(size_t task, double fraction);  // fraction 0..1

 private:
  void loop();
  std::string render() const;

  std::string label_;
  std::vector<std::unique_ptr<std::atomic<double>>> done_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool printed_ = false;
  bool tty_ = false;
  std::thread thread_;
};

}  // namespace slicelab
