#include "util/platform.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

namespace cc {
namespace {

constexpr const char* kReexecMark = "CLAIMCHECK_PLATFORM_REEXEC";
char** saved_argv = nullptr;
std::string unpinned;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool lower_equal(std::string a, std::string b) {
  for (auto* s : {&a, &b})
    for (char& c : *s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return a == b;
}

#if defined(__x86_64__)
bool has(const char* feature) {
  // __builtin_cpu_supports needs a literal: the features are spelled out below.
  const std::string f = feature;
  if (f == "avx2") return __builtin_cpu_supports("avx2");
  if (f == "fma") return __builtin_cpu_supports("fma");
  if (f == "avx512f") return __builtin_cpu_supports("avx512f");
  if (f == "avx512bw") return __builtin_cpu_supports("avx512bw");
  if (f == "avx512dq") return __builtin_cpu_supports("avx512dq");
  if (f == "avx512vl") return __builtin_cpu_supports("avx512vl");
  return false;
}
#endif

// The instructions a kernel needs; false for a kernel this table does not know.
bool needs(const std::string& kernel, std::vector<const char*>& features) {
  if (lower_equal(kernel, "haswell") || lower_equal(kernel, "zen") || lower_equal(kernel, "avx2"))
    features = {"avx2", "fma"};
  else if (lower_equal(kernel, "skylakex") || lower_equal(kernel, "cooperlake") || lower_equal(kernel, "avx512"))
    features = {"avx2", "fma", "avx512f", "avx512bw", "avx512dq", "avx512vl"};
  else if (lower_equal(kernel, "default") || lower_equal(kernel, "prescott") || lower_equal(kernel, "nehalem") ||
           lower_equal(kernel, "core2"))
    features = {};
  else
    return false;
  return true;
}

bool supports(const std::string& kernel, std::string& why) {
#if defined(__x86_64__)
  std::vector<const char*> features;
  if (!needs(kernel, features)) {
    why = "kernel '" + kernel + "' is not one claimcheck knows the instructions of";
    return false;
  }
  for (const char* f : features)
    if (!has(f)) {
      why = "this CPU lacks " + std::string(f) + ", which kernel '" + kernel + "' needs";
      return false;
    }
  return true;
#else
  why = "this is not an x86-64 CPU; kernel '" + kernel + "' is x86-64 code";
  return false;
#endif
}

}  // namespace

NumericPlatform reference_platform() { return {"Haswell", "avx2"}; }

std::string blas_kernel() {
  using CoreName = char* (*)();
  auto fn = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  return fn ? std::string(fn()) : std::string();
}

std::string recorded_blas_kernel(const nlohmann::json& runtime) {
  if (!runtime.is_object()) return "";
  if (runtime.contains("blas_kernel") && runtime["blas_kernel"].is_string()) return runtime["blas_kernel"];
  if (!runtime.contains("blas") || !runtime["blas"].is_string()) return "";
  // openblas_get_config(): "... DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64": the core name
  // stands just before MAX_THREADS.
  std::istringstream words(runtime["blas"].get<std::string>());
  std::string w, previous;
  while (words >> w) {
    if (w.rfind("MAX_THREADS=", 0) == 0) return previous;
    previous = w;
  }
  return "";
}

bool cpu_supports(const NumericPlatform& p, std::string& why) {
  return supports(p.blas_kernel, why) && supports(p.aten_capability, why);
}

void remember_argv(char** argv) { saved_argv = argv; }
const std::string& unpinned_reason() { return unpinned; }

namespace {

bool pin(const NumericPlatform& p, std::string& why) {
  if (env("CLAIMCHECK_NATIVE_KERNELS") == "1") {
    why = "CLAIMCHECK_NATIVE_KERNELS=1: the libraries chose their own kernels";
    return false;
  }
  const std::string kernel = blas_kernel();
  if (kernel.empty()) {
    why = "the BLAS in use is not OpenBLAS, whose kernel the fixtures record";
    return false;
  }
  if (lower_equal(kernel, p.blas_kernel) && !lower_equal(env("ATEN_CPU_CAPABILITY"), p.aten_capability)) {
    // OpenBLAS chose its kernel when it loaded; ATen chooses on its first CPU operation, which has
    // not happened yet: setting the variable here is enough, no re-execution needed.
    if (!cpu_supports(p, why)) return false;
    ::setenv("ATEN_CPU_CAPABILITY", p.aten_capability.c_str(), 1);
  }
  const bool pinned = lower_equal(kernel, p.blas_kernel) && lower_equal(env("ATEN_CPU_CAPABILITY"), p.aten_capability);
  if (pinned) {
    ::unsetenv(kReexecMark);  // a child that must pin another platform (fixtures recreate) may re-execute
    return true;
  }
  if (!cpu_supports(p, why)) return false;
  if (!env(kReexecMark).empty()) {  // this process was re-executed already: the variable was not honoured
    why = "OpenBLAS runs kernel '" + kernel + "' although OPENBLAS_CORETYPE=" + env("OPENBLAS_CORETYPE");
    return false;
  }
  if (!saved_argv) {
    why = "main() did not remember its argv, so the process cannot re-execute itself";
    return false;
  }
  ::setenv("OPENBLAS_CORETYPE", p.blas_kernel.c_str(), 1);
  ::setenv("ATEN_CPU_CAPABILITY", p.aten_capability.c_str(), 1);
  ::setenv(kReexecMark, "1", 1);
  ::execv("/proc/self/exe", saved_argv);
  why = std::string("cannot re-execute /proc/self/exe to pin the kernels: ") + std::strerror(errno);
  return false;
}

}  // namespace

bool pin_platform(const NumericPlatform& p, std::string& why) {
  const bool ok = pin(p, why);
  unpinned = ok ? "" : why;
  return ok;
}

nlohmann::json platform_info() {
  return {{"blas_kernel", blas_kernel()},
          {"openblas_coretype", env("OPENBLAS_CORETYPE")},
          {"aten_cpu_capability_env", env("ATEN_CPU_CAPABILITY")}};
}

}  // namespace cc
