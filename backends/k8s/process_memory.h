// The process's own resident memory, for /metrics' process_resident_memory_bytes (the name and
// meaning of Prometheus client libraries' process collector, which dashboards already chart).
#pragma once

#include <cstdint>
#include <optional>

namespace slicelab::k8s {

// Resident set size in bytes, read from /proc/self/statm (one read of a short file, for a
// scrape, not for a request); nullopt where it cannot be read (no procfs).
std::optional<int64_t> resident_memory_bytes();

}  // namespace slicelab::k8s
