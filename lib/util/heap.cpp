#include "util/heap.h"

#include <climits>  // also defines __GLIBC__ where the C library is glibc's

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace cc {

void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);                // no block gets a mapping of its own (beyond a thread heap's 64 MB)
  mallopt(M_TRIM_THRESHOLD, INT_MAX);    // the heap's free top is kept
  mallopt(M_TOP_PAD, 64 * 1024 * 1024);  // and grows 64 MB at a time, not one block's size
#endif
}

}  // namespace cc
