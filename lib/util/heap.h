#pragma once
// How this process's heap treats freed memory.

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

}  // namespace cc
