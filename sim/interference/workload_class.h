// A workload class's demand vector (what one pod of the class asks of a GPU when it runs alone),
// the input of the interference model; pods name their class via PodSpec::workload_class.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab {

struct WorkloadClass {
  std::string name;
  double sm = 1.0;          // share of the GPU's SM time it uses alone, (0, 1]
  double bandwidth = 0.0;   // share of the GPU's memory bandwidth it uses alone, [0, 1]
  double launch_khz = 0.0;  // kernel launches per millisecond when alone (0: not known)
  int64_t memory_mib = 0;   // peak device memory (0: the pod's own gpu_memory_mib)
  // A notebook or dev pod's duty cycle (`duty_cycle: {active, idle}`): it alternates active and
  // idle periods (exponential, of these means), asking `sm` only while active; it holds its GPU
  // share and memory throughout. idle_mean_s 0: always active.
  double active_mean_s = 0.0;
  double idle_mean_s = 0.0;

  // The share of its time it is active.
  double duty() const {
    return idle_mean_s <= 0 ? 1.0 : active_mean_s / (active_mean_s + idle_mean_s);
  }
};

// The classes a scenario knows, by name; small (a handful), so a linear search is right.
class WorkloadClasses {
 public:
  WorkloadClasses() = default;
  explicit WorkloadClasses(std::vector<WorkloadClass> classes) : classes_(std::move(classes)) {}

  // Adds or replaces the class of that name (a scenario's own classes replace the calibration's).
  void upsert(WorkloadClass c);
  std::optional<size_t> index_of(std::string_view name) const;
  const WorkloadClass& operator[](size_t i) const { return classes_[i]; }
  const std::vector<WorkloadClass>& all() const { return classes_; }
  bool empty() const { return classes_.empty(); }

 private:
  std::vector<WorkloadClass> classes_;
};

}  // namespace slicelab
