// Gives the heap's free pages back to the system after a burst of allocation that is over (the
// cluster's nodes and pods read at start, a relist), where the allocator can (glibc).
#pragma once

namespace slicelab::k8s {

// Reading 5,000 nodes leaves most of the process's resident memory as freed heap that glibc keeps
// (226-249 MB, 45 MB after the trim): asks the allocator to return it. True when it could ask (a
// glibc build); elsewhere nothing happens. Costs a walk of the heap: call it after a burst, not per
// request.
bool release_free_heap();

}  // namespace slicelab::k8s
