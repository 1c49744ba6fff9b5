#include "util/atomic_file.h"

#include <cstdio>
#include <fstream>

#include "util/error.h"

namespace cc {

void write_file_atomic(const std::string& path, const std::string& contents) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream os(tmp, std::ios::binary | std::ios::trunc);
    if (!os) throw Error(tmp + ": cannot open for writing");
    os.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    if (!os.flush()) throw Error(tmp + ": write failed (disk full?)");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw Error(path + ": cannot rename " + tmp + " into place");
}

}  // namespace cc
