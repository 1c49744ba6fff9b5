#include "util/heap.h"

#include <climits>  // also defines __GLIBC__ where the C library is glibc's
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace cc {

namespace {

constexpr int kDefaultMappings = 65536;     // glibc's default cap on the number of mappings
constexpr int kDefaultTopPad = 128 * 1024;  // glibc's default M_TOP_PAD
constexpr int kKeptTopPad = 64 * 1024 * 1024;

std::mutex heap_mutex;
bool freed_memory_kept = false;  // keep_freed_memory was called: without it glibc maps large blocks anyway
int guards_alive = 0;

}  // namespace

void keep_freed_memory() {
  const std::lock_guard<std::mutex> lock(heap_mutex);
  freed_memory_kept = true;
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);              // no block gets a mapping of its own (beyond a thread heap's 64 MB)
  mallopt(M_TRIM_THRESHOLD, INT_MAX);  // the heap's free top is kept
  mallopt(M_TOP_PAD, kKeptTopPad);     // and grows 64 MB at a time, not one block's size
#endif
}

LargeBlocksMapped::LargeBlocksMapped() {
  const std::lock_guard<std::mutex> lock(heap_mutex);
  if (guards_alive++ > 0 || !freed_memory_kept) return;
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMappedBlockBytes));  // DEFAULT_MMAP_THRESHOLD_MAX on 64-bit
  mallopt(M_MMAP_MAX, kDefaultMappings);
  // The heap grows by what it needs, not 64 MB more: a free top that large would serve a 32 MB block
  // from the heap or not depending on where earlier blocks happened to end, so the same step's max RSS
  // came out ~380 or ~455 MB on one shape by the process environment's size or the BLAS thread count.
  mallopt(M_TOP_PAD, kDefaultTopPad);
#endif
}

LargeBlocksMapped::~LargeBlocksMapped() {
  const std::lock_guard<std::mutex> lock(heap_mutex);
  if (--guards_alive > 0 || !freed_memory_kept) return;
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);  // keep_freed_memory's settings again; blocks mapped meanwhile are unmapped when freed
  mallopt(M_TOP_PAD, kKeptTopPad);
#endif
}

}  // namespace cc
