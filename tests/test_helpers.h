#pragma once
// Small helpers the test files share.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace cc::test {

// TMP/claimcheck-PID-SUITE.TEST: the folder own_dir() gives the test `test` of this process.
inline std::filesystem::path dir_of_test(const std::string& test) {
  return std::filesystem::path(::testing::TempDir()) / ("claimcheck-" + std::to_string(::getpid()) + "-" + test);
}

// Removes a test's own folder when the test ends well (passed or skipped) and names it when the test
// failed, so that a run leaves nothing in TMP but what a failure needs looked at.
class OwnDirCleaner : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo& info) override {
    const auto d = dir_of_test(std::string(info.test_suite_name()) + "." + info.name());
    std::error_code ec;
    if (!std::filesystem::exists(d, ec)) return;
    if (info.result()->Failed())
      std::printf("kept for the failure above: %s\n", d.string().c_str());
    else
      std::filesystem::remove_all(d, ec);
  }
};

// An empty directory of this test's own: TMP/claimcheck-PID-SUITE.TEST/NAME (removed first if it
// exists). The process id and the test's name keep `ctest -j` runs, and two CI runs on one machine,
// out of each other's folders. It is removed when the test passes (OwnDirCleaner, registered with the
// first folder a process makes) and kept, and named, when it fails.
inline std::filesystem::path own_dir() {
  static const bool cleaner = [] {
    ::testing::UnitTest::GetInstance()->listeners().Append(new OwnDirCleaner);  // gtest owns it
    return true;
  }();
  (void)cleaner;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string test = info ? std::string(info->test_suite_name()) + "." + info->name() : "no-test";
  auto d = dir_of_test(test);
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
