#pragma once
// Small helpers the test files share.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace cc::test {

// An empty directory under gtest's temporary folder (removed first if it exists).
inline std::string fresh_dir(const std::string& name) {
  auto d = std::filesystem::path(::testing::TempDir()) / name;
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
