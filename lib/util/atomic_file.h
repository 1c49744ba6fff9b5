#pragma once
#include <string>

namespace cc {

// Writes PATH.tmp, then renames it over PATH: readers never see half a file, and a failed
// write leaves the old file in place. Throws cc::Error naming the file.
void write_file_atomic(const std::string& path, const std::string& contents);

}  // namespace cc
