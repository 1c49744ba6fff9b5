#pragma once
// One exception type for every user-facing failure: bad input files, bad flags, corrupt
// checkpoints. The message is complete ("FILE:LINE:COL: what was wrong, what was expected"),
// so the CLI prints it as is and exits non-zero.
#include <stdexcept>
#include <string>

namespace cc {

struct SourcePos {
  std::string file;
  int line = 0;             // 1-based; 0 = unknown
  int column = 0;           // 1-based; 0 = unknown
  std::string str() const;  // "file:line:col" (parts that are unknown are left out)
};

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
  Error(const SourcePos& where, const std::string& message) : std::runtime_error(where.str() + ": " + message) {}
};

}  // namespace cc
