// Keeps a file-backed mapping that shrinks under a process (a same-uid `truncate` of the shared
// region) from killing it with SIGBUS: the faulting access finds zeroed memory instead.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>

namespace slicelab::interposer {

// Most mappings guarded at once (a process maps one region; the stats tool one more).
constexpr int kMaxGuardedMappings = 8;

// Guards [start, start + size): a SIGBUS whose faulting address lies inside replaces the whole
// range with zeroed private memory (MAP_FIXED, so every pointer into it stays valid), sets
// *lost, and writes `message` (one line, cut to 512 bytes) to stderr the first time. Any other
// SIGBUS goes to the handler that was installed before (or the default action). The handler is
// installed on the first call. Returns the entry for unguard_mapping, or -1 when
// kMaxGuardedMappings are guarded already (then this one is not).
int guard_mapping(void* start, size_t size, std::atomic<bool>* lost, const std::string& message);
// Stops guarding an entry (before the range is unmapped).
void unguard_mapping(int entry);

}  // namespace slicelab::interposer
