#pragma once
#include <string>

#include "util/error.h"

namespace cc {

// An output that could not be written (a full disk, a file over the size limit, a folder that cannot
// be written): not a broken input, so commands exit with their own status for it (app/cli.h).
class WriteError : public Error {
 public:
  using Error::Error;
};

// Writes PATH.tmp, then renames it over PATH: readers never see half a file, and a failed
// write leaves the old file in place. Throws WriteError naming the file.
void write_file_atomic(const std::string& path, const std::string& contents);

}  // namespace cc
