#include "sim/engine/gang_table.h"

#include <limits>

namespace slicelab {

std::string_view to_string(GangMode m) {
  switch (m) {
    case GangMode::kAllOrNothing:
      return "all-or-nothing";
    case GangMode::kPermit:
      return "permit";
    case GangMode::kNone:
      return "none";
  }
  return "?";
}

std::optional<GangMode> gang_mode_from_name(std::string_view name) {
  for (const GangMode m : {GangMode::kAllOrNothing, GangMode::kPermit, GangMode::kNone})
    if (to_string(m) == name) return m;
  return std::nullopt;
}

void GangTable::prepare(const JobTable& jobs) {
  jobs_.assign(jobs.size(), Job{});
}

bool GangTable::arrived(uint32_t job, uint64_t seq, uint32_t members) {
  jobs_[job].seq = seq;
  return ++jobs_[job].arrived == members;
}

void GangTable::arm(uint32_t job, double at, TimerKind kind) {
  timers_.push({at, job, jobs_[job].epoch, kind});
}

double GangTable::next_timer() {
  while (!timers_.empty() && timers_.top().epoch != jobs_[timers_.top().job].epoch) timers_.pop();
  return timers_.empty() ? std::numeric_limits<double>::infinity() : timers_.top().at;
}

std::pair<uint32_t, GangTable::TimerKind> GangTable::pop_timer() {
  const Timer t = timers_.top();
  timers_.pop();
  return {t.job, t.kind};
}

}  // namespace slicelab
