#include "util/error.h"

namespace cc {

std::string SourcePos::str() const {
  std::string s = file.empty() ? "<input>" : file;
  if (line > 0) s += ":" + std::to_string(line);
  if (line > 0 && column > 0) s += ":" + std::to_string(column);
  return s;
}

}  // namespace cc
