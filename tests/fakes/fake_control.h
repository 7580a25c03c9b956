// Test-only controls exported by the fake libcuda.so.1: its clock (real or virtual), the busy
// time of its virtual devices, and graph handles with a chosen duration.
#pragma once

#include <cstdint>

extern "C" {
// Monotonic time in ns: real time, or virtual time when SLICELAB_FAKE_VIRTUAL_TIME=1.
int64_t slicelab_fake_now_ns(void);
// Sleeps (real time) or advances the virtual clock.
void slicelab_fake_sleep_ns(int64_t ns);
// Total GPU time launches have occupied device `dev` so far.
int64_t slicelab_fake_busy_ns(int dev);
// Bytes the fake driver has really handed out on device `dev` (whatever the interposer says).
uint64_t slicelab_fake_used_bytes(int dev);
// The fake's own answer to cuGetProcAddress (never substituted by an interposer).
void* slicelab_fake_proc(const char* symbol, int version, uint64_t flags);
// A CUgraphExec whose launch occupies the device for `ns`.
void* slicelab_fake_graph_exec(int64_t ns);
}
