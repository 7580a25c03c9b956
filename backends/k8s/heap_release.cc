#include "backends/k8s/heap_release.h"

#include <cstddef>  // defines __GLIBC__ where it applies

#if defined(__GLIBC__) && __has_include(<malloc.h>)
#include <malloc.h>
#define SLICELAB_HAS_MALLOC_TRIM 1
#endif

namespace slicelab::k8s {

bool release_free_heap() {
#ifdef SLICELAB_HAS_MALLOC_TRIM
  malloc_trim(0);
  return true;
#else
  return false;
#endif
}

}  // namespace slicelab::k8s
