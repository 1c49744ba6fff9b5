#pragma once
#include <string>

namespace cc {

// Lower-case hex sha256 of a byte string / of a whole file (throws cc::Error if unreadable).
std::string sha256_hex(const std::string& bytes);
std::string sha256_file(const std::string& path);

}  // namespace cc
