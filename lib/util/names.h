#pragma once
// Names that become folder names (runs, sweeps, variants: fixtures/NAME/..., CACHE/NAME-HASH/...) or
// test names: letters, digits, '_', '.', '-', the first a letter or digit, at most 64 characters.
// So no name is "..", holds a '/', or starts with '-' (an option) or '.' (a hidden folder).
#include <algorithm>
#include <string>

#include "util/error.h"

namespace cc {

inline bool is_safe_name(const std::string& s) {
  if (s.empty() || s.size() > 64 || !std::isalnum(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
}

// Throws cc::Error at `where` naming the rule.
inline void check_name(const std::string& s, const std::string& what, const SourcePos& where) {
  if (is_safe_name(s)) return;
  throw Error(
      where,
      what + " '" + s.substr(0, 64) + (s.size() > 64 ? "...'" : "'") +
          " must be letters, digits, '_', '.', '-' (the first a letter or digit, at most 64): it names a folder");
}

}  // namespace cc
