// util/heap.h: after keep_freed_memory(), a large block comes from the heap, not a mapping of its own.
#include <gtest/gtest.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cstdlib>

#include "util/heap.h"

// A sanitizer's allocator serves malloc in place of glibc's (ci/sanitize): nothing of this applies there.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define CC_SANITIZER_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CC_SANITIZER_ALLOCATOR 1
#endif

#if defined(__GLIBC__) && !defined(CC_SANITIZER_ALLOCATOR)
namespace {

// Bytes of the blocks glibc serves with mappings of their own, while a 48 MB block is held.
size_t mapped_while_holding_a_large_block() {
  const size_t before = mallinfo2().hblkhd;
  static void* volatile held;  // escapes, so that the allocation is not optimised away
  held = std::malloc(48u << 20);
  const size_t during = mallinfo2().hblkhd;
  std::free(held);
  return during - before;
}

}  // namespace

// One test, one process (gtest_discover_tests): the default first, then the setting.
TEST(Heap, ALargeBlockIsKeptInTheHeapOnceFreedMemoryIsKept) {
  EXPECT_GE(mapped_while_holding_a_large_block(), size_t{48} << 20) << "glibc's default maps it on its own";
  cc::keep_freed_memory();
  EXPECT_EQ(mapped_while_holding_a_large_block(), 0u);
}
#endif
