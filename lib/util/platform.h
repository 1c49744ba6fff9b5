#pragma once
// The numerical platform a bitwise result depends on, and pinning it.
//
// Two libraries pick their kernels for the CPU when they load, from the environment:
//   - OpenBLAS (Debian's is built with DYNAMIC_ARCH): OPENBLAS_CORETYPE, else its own choice. Its
//     kernels sum in different orders: on an AVX-512 Intel CPU its own choice (SkylakeX) retrained
//     the default run's step 500 with max |dw| = 0.0999 against the fixtures' Haswell kernel.
//   - ATen (libtorch's CPU ops): ATEN_CPU_CAPABILITY (default / avx2 / avx512), else the best the CPU has.
// Both read the variable once, at start-up, so a process pins them by re-executing itself with the
// environment set (pin_platform), before any library work.
//
// The reference platform: OpenBLAS's Haswell kernel and ATen's avx2 kernels. Every committed fixture
// was trained on it; any x86-64 CPU with AVX2 and FMA (Intel since 2013, AMD since 2015) runs it.
#include <nlohmann/json.hpp>

#include <string>

namespace cc {

struct NumericPlatform {
  std::string blas_kernel;      // OpenBLAS core name, e.g. "Haswell"
  std::string aten_capability;  // "avx2", "avx512", "default"
};

NumericPlatform reference_platform();  // {Haswell, avx2}

// OpenBLAS's kernel in this process ("Haswell"), "" when the BLAS is not OpenBLAS.
std::string blas_kernel();
// The kernel a sidecar's runtime records: "blas_kernel", else read from its "blas" config string
// ("OpenBLAS 0.3.21 ... Haswell MAX_THREADS=64"); "" when it says neither.
std::string recorded_blas_kernel(const nlohmann::json& runtime);

// Whether this CPU can run `p`'s kernels; `why` says what it lacks.
bool cpu_supports(const NumericPlatform& p, std::string& why);

// main() hands its argv over first: pinning re-executes the process with it.
void remember_argv(char** argv);

// Makes this process run on `p`: when OpenBLAS's kernel or the ATen variable differ, sets
// OPENBLAS_CORETYPE and ATEN_CPU_CAPABILITY and re-executes /proc/self/exe with the remembered argv
// (it does not return then). Returns true when the process runs on `p`; false, with `why`, when it cannot (the
// CPU lacks the kernel's instructions, the BLAS is not OpenBLAS, or a re-execution did not take).
// CLAIMCHECK_NATIVE_KERNELS=1 opts out: nothing is pinned, and bitwise claims then say the platform differs.
bool pin_platform(const NumericPlatform& p, std::string& why);
// Why the last pin_platform() left this process unpinned; "" when it is pinned.
const std::string& unpinned_reason();

// What every sidecar records of the platform: {blas_kernel, openblas_coretype, aten_cpu_capability_env}
// (the ATen capability actually chosen is recorded by train::runtime_info, which links ATen).
nlohmann::json platform_info();

}  // namespace cc
