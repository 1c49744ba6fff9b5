#pragma once
// Facts about the build and the machine that every checkpoint and report records.
#include <nlohmann/json.hpp>
#include <string>

namespace cc {

std::string claimcheck_version();
std::string source_dir();  // the source tree this binary was built from
std::string git_commit();  // "abc123..." (+ "-dirty"), or "unknown" outside a git checkout
// The same, but of the sources this binary was compiled from (recorded at build time): git_commit()
// is the checkout's state when the binary runs, which a binary built earlier does not contain.
std::string build_commit();
std::string blas_info();  // OpenBLAS's own config string, or "unknown (not OpenBLAS)"
std::string cpu_model();
std::string utc_now_iso8601();

// Thread setup, chosen by measurement (reports/perf.md): libtorch's intra-op OpenMP pool is
// set by the caller; OpenBLAS's own pthread pool is set here. Returns false if the BLAS in
// use is not OpenBLAS (then the call does nothing).
bool set_blas_threads(int n);
int blas_threads();  // -1 when unknown

}  // namespace cc
