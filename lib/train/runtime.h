#pragma once
// Process-wide runtime setup: threads, device selection, library versions.
#include <nlohmann/json.hpp>
#include <torch/types.h>

#include <string>

namespace cc::train {

struct ThreadSetup {
  int torch_threads = 1;  // libtorch's intra-op OpenMP pool
  int blas_threads = 2;   // OpenBLAS's own pthread pool (matmuls)
};

// Default: 1 OpenMP thread and one BLAS thread per core, chosen by measurement on the
// 2-core machine (reports/perf.md). Env overrides: CLAIMCHECK_TORCH_THREADS, CLAIMCHECK_BLAS_THREADS.
ThreadSetup default_threads();
void apply_threads(const ThreadSetup& t);
// The setup this process runs with now (libtorch's and OpenBLAS's own counts), e.g. to restore it.
ThreadSetup threads_in_effect();
// What `verify` measures with: 1 libtorch + 1 BLAS thread, not overridable, so that a measured value
// does not depend on the machine's core count (report/baseline.h compares values exactly).
inline ThreadSetup measurement_threads() { return ThreadSetup{1, 1}; }
// The thread setup a checkpoint was trained with (its sidecar's runtime), `fallback` for what
// the sidecar does not say. CPU results are bitwise reproducible only with the same setup.
ThreadSetup recorded_threads(const nlohmann::json& sidecar, ThreadSetup fallback);

// CUDA training repeats bitwise only with deterministic kernels (measured on an H200: two identical
// 1000-step runs differed without them). On by default for cuda; CLAIMCHECK_CUDA_DETERMINISTIC=0 turns
// it off for speed. Process-wide: call before the first CUDA operation.
void make_cuda_deterministic();
// "cpu" or "cuda[:N]" (cuda: also make_cuda_deterministic()); throws cc::Error for an unknown name or for cuda without
// CUDA.
torch::Device parse_device(const std::string& name);
bool cuda_available();

// ATen's CPU kernels in this process: "avx2", "avx512" or "default" (ATEN_CPU_CAPABILITY, else the CPU's best).
std::string aten_cpu_capability();

// {libtorch, blas, blas_kernel, aten_cpu_capability, cpu, threads, cuda, claimcheck, git_commit, build_commit}
nlohmann::json runtime_info();

}  // namespace cc::train
