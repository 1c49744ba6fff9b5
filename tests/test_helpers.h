#pragma once
// Small helpers the test files share.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

namespace cc::test {

// An empty directory of this test's own: TMP/claimcheck-PID-SUITE.TEST/NAME (removed first if it
// exists). The process id and the test's name keep `ctest -j` runs, and two CI runs on one machine,
// out of each other's folders.
inline std::filesystem::path own_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string test = info ? std::string(info->test_suite_name()) + "." + info->name() : "no-test";
  auto d = std::filesystem::path(::testing::TempDir()) / ("claimcheck-" + std::to_string(::getpid()) + "-" + test);
  std::filesystem::create_directories(d);
  return d;
}

// A path for a file of this test's own (in own_dir()).
inline std::string test_path(const std::string& name) { return (own_dir() / name).string(); }

inline std::string fresh_dir(const std::string& name) {
  auto d = own_dir() / name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

// `s` with the first `from` replaced by `to`; a missing `from` fails the calling test.
inline std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

}  // namespace cc::test
