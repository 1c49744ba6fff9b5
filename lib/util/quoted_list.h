#pragma once
// Names as an error message lists them: "'a', 'b', 'c'", each once, in the order first given.
#include <algorithm>
#include <string>
#include <vector>

namespace cc {

inline std::string quoted_list(const std::vector<std::string>& names) {
  std::vector<std::string> seen;
  std::string out;
  for (const auto& n : names) {
    if (std::find(seen.begin(), seen.end(), n) != seen.end()) continue;
    seen.push_back(n);
    out += (out.empty() ? "'" : ", '") + n + "'";
  }
  return out;
}

}  // namespace cc
