#include "train/runtime.h"

#include <torch/torch.h>
#include <torch/version.h>
#include <ATen/Version.h>

#include <cstdlib>
#include <thread>

#include "util/error.h"
#include "util/platform.h"
#include "util/provenance.h"

namespace cc::train {
namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < 1 || x > 1024)
    throw Error(std::string("environment variable ") + name + "='" + v + "' is not a thread count");
  return static_cast<int>(x);
}

}  // namespace

ThreadSetup default_threads() {
  ThreadSetup t;
  const int cores = std::max(1u, std::thread::hardware_concurrency());
  t.torch_threads = env_int("CLAIMCHECK_TORCH_THREADS", 1);
  t.blas_threads = env_int("CLAIMCHECK_BLAS_THREADS", cores);
  return t;
}

void apply_threads(const ThreadSetup& t) {
  torch::set_num_threads(t.torch_threads);
  set_blas_threads(t.blas_threads);
}

ThreadSetup threads_in_effect() {
  ThreadSetup t = default_threads();
  t.torch_threads = torch::get_num_threads();
  if (blas_threads() > 0) t.blas_threads = blas_threads();
  return t;
}

ThreadSetup recorded_threads(const nlohmann::json& sidecar, ThreadSetup fallback) {
  const auto rt = sidecar.value("runtime", nlohmann::json::object());
  if (rt.contains("torch_threads") && rt["torch_threads"].is_number_integer())
    fallback.torch_threads = rt["torch_threads"];
  if (rt.contains("blas_threads") && rt["blas_threads"].is_number_integer()) fallback.blas_threads = rt["blas_threads"];
  return fallback;
}

bool cuda_available() { return torch::cuda::is_available(); }

void make_cuda_deterministic() {
  if (const char* off = std::getenv("CLAIMCHECK_CUDA_DETERMINISTIC"); off && std::string(off) == "0") return;
  // cuBLAS reads this when its first handle is made; a value the user set wins.
  ::setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", 0);
  at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/false);
}

torch::Device parse_device(const std::string& name) {
  if (name == "cpu") return torch::Device(torch::kCPU);
  if (name.rfind("cuda", 0) == 0) {
    if (!cuda_available()) throw Error("--device " + name + ": this build of libtorch has no usable CUDA device");
    make_cuda_deterministic();
    try {
      return torch::Device(name);
    } catch (const c10::Error&) {
      throw Error("--device " + name + ": not a valid device name (use cpu, cuda or cuda:N)");
    }
  }
  throw Error("--device " + name + ": unknown device (use cpu, cuda or cuda:N)");
}

std::string aten_cpu_capability() {
  // at::native::get_cpu_capability() is not exported by libtorch 1.13; show_config() reports it
  // ("CPU capability usage: AVX2").
  static const std::string cap = [] {
    const std::string config = at::show_config(), key = "CPU capability usage: ";
    const auto at = config.find(key);
    if (at == std::string::npos) return std::string("unknown");
    std::string v = config.substr(at + key.size(), config.find('\n', at) - at - key.size());
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return v == "no avx" ? std::string("default") : v;
  }();
  return cap;
}

nlohmann::json runtime_info() {
  const nlohmann::json platform = platform_info();
  return {{"claimcheck", claimcheck_version()},
          {"git_commit", git_commit()},
          {"build_commit", build_commit()},
          {"libtorch", TORCH_VERSION},
          {"blas", blas_info()},
          {"blas_kernel", platform["blas_kernel"]},
          {"aten_cpu_capability", aten_cpu_capability()},
          {"cpu", cpu_model()},
          {"torch_threads", torch::get_num_threads()},
          {"blas_threads", blas_threads()},
          {"cuda_available", cuda_available()},
          {"deterministic_algorithms", at::globalContext().deterministicAlgorithms()}};
}

}  // namespace cc::train
