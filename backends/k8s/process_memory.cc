#include "backends/k8s/process_memory.h"

#include <unistd.h>

#include <fstream>

namespace slicelab::k8s {

std::optional<int64_t> resident_memory_bytes() {
  // statm: size resident shared text lib data dt, in pages.
  std::ifstream in("/proc/self/statm");
  int64_t size_pages = 0, resident_pages = 0;
  if (!(in >> size_pages >> resident_pages)) return std::nullopt;
  const long page = sysconf(_SC_PAGESIZE);
  if (page <= 0) return std::nullopt;
  return resident_pages * static_cast<int64_t>(page);
}

}  // namespace slicelab::k8s
