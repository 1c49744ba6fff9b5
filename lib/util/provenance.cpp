#include "util/provenance.h"

#include "build_commit.h"  // generated at build time: CLAIMCHECK_BUILD_COMMIT, CLAIMCHECK_BUILD_VERSION

#include <dlfcn.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>

namespace cc {
namespace {

std::string run_command(const std::string& cmd) {
  std::array<char, 256> buf{};
  std::string out;
  std::unique_ptr<FILE, decltype(&pclose)> pipe(popen(cmd.c_str(), "r"), &pclose);
  if (!pipe) return out;
  while (fgets(buf.data(), buf.size(), pipe.get())) out += buf.data();
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// OpenBLAS is reached through the libblas.so.3 that libtorch links, so look its symbols up
// at run time rather than linking it: the same binary then also runs on another BLAS.
template <typename Fn>
Fn openblas_symbol(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, name));
}

}  // namespace

// CMakeLists.txt's version, with +dev.N.gHASH between releases (cmake/BuildCommit.cmake).
std::string claimcheck_version() { return CLAIMCHECK_BUILD_VERSION; }
std::string source_dir() { return CLAIMCHECK_SOURCE_DIR; }

std::string build_commit() { return CLAIMCHECK_BUILD_COMMIT; }

std::string git_commit() {
  const std::string git = "git -C '" + source_dir() + "' ";
  std::string head = run_command(git + "rev-parse HEAD 2>/dev/null");
  if (head.empty()) return "unknown";
  // Only the code counts as "dirty": fixtures, reports and claims do not change a build. The paths come
  // from lib/util/CMakeLists.txt, which gives cmake/BuildCommit.cmake the same ones.
  std::string dirty =
      run_command(git + "status --porcelain --untracked-files=no -- " CLAIMCHECK_CODE_PATHS " 2>/dev/null");
  return dirty.empty() ? head : head + "-dirty";
}

std::string blas_info() {
  using GetConfig = char* (*)();
  if (auto fn = openblas_symbol<GetConfig>("openblas_get_config")) return std::string("OpenBLAS ") + fn();
  return "unknown (not OpenBLAS)";
}

bool set_blas_threads(int n) {
  using SetThreads = void (*)(int);
  auto fn = openblas_symbol<SetThreads>("openblas_set_num_threads");
  if (!fn) return false;
  fn(n);
  return true;
}

int blas_threads() {
  using GetThreads = int (*)();
  auto fn = openblas_symbol<GetThreads>("openblas_get_num_threads");
  return fn ? fn() : -1;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown";
}

std::string utc_now_iso8601() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace cc
