#pragma once
// How this process's heap treats freed memory.
#include <cstdint>

namespace cc {

// Keeps freed memory in the heap for the next allocation instead of returning it to the system.
// glibc serves every block over 32 MB with a mapping of its own and unmaps it on free (and gives the
// heap's top back once 128 kB of it are free), so a computation that frees a large tensor and allocates
// one of the same size on the next step, as §7's Monte Carlo batches do ([4096, 16, 100] float64, 52 MB)
// and the forwards' chunks, page-faults and zeroes that memory again every time: on a 2-core AMD EPYC
// VM T1d spent 11.7 of its 28.7 s of CPU in the kernel. With this, 5.1 s instead of 15.3 s of wall,
// 0.19 million page faults instead of 1.43, the same bits (reports/perf.md). The cost: the process
// keeps its peak heap (the verification of Assign and Add, this setting alone: 1.36 GB of RSS instead
// of 1.27).
// Only glibc has these settings; elsewhere this does nothing. Call before the work, once.
void keep_freed_memory();

// While one lives, blocks of 32 MB and more get a mapping of their own again, given back when freed (the
// blocks under it stay in the kept heap). Training holds one: its step frees and allocates tensors of
// the batch's size in an order no heap packs tightly, so with every block kept the heap grew by the
// holes on each step (grokking at p = 700, a model of width 16: 3.4 GB of RSS after two steps against
// 2.1 GB with blocks mapped; the first step's 1.9 GB is what is alive at once), and the training
// memory estimate (train/memory_estimate.h) would bound nothing. The committed runs, trained a seed at a time,
// make no tensor of 32 MB in a step (the largest, Bietti et al.'s residual stream at d 256, is 17 MB), so they
// allocate as before; an evaluation chunk of Bietti et al.'s (512 sequences of 128 positions) is
// mapped. Where a block lives changes no arithmetic: the repro tests retrain the committed runs bit
// for bit. Trainers on several threads may each hold one: the last one out keeps blocks again. While one
// lives the heap also grows by what it needs (glibc's 128 kB pad), not 64 MB ahead: a free top that large
// served a 32 MB block from the heap or not by where earlier blocks happened to end, and one shape's max
// RSS was ~384 or ~455 MB by the environment's size (364-406 MB now, tests/memory_bound_cli.sh).
constexpr int64_t kMappedBlockBytes = int64_t{32} * 1024 * 1024;  // glibc's own ceiling for its mapping threshold
class LargeBlocksMapped {
 public:
  LargeBlocksMapped();
  ~LargeBlocksMapped();
  LargeBlocksMapped(const LargeBlocksMapped&) = delete;
  LargeBlocksMapped& operator=(const LargeBlocksMapped&) = delete;
};

}  // namespace cc
