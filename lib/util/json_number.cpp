#include "util/json_number.h"

#include <limits>

#include "util/error.h"

namespace cc {

int64_t json_int64(const nlohmann::json& v, const std::string& what) {
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      throw Error(what + ": " + v.dump() + " is too large");
    return static_cast<int64_t>(v.get<uint64_t>());
  }
  if (!v.is_number_integer()) throw Error(what + ": expected an integer, got " + v.dump(-1).substr(0, 40));
  return v.get<int64_t>();
}

uint64_t json_uint64(const nlohmann::json& v, const std::string& what) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer()) {
    if (v.get<int64_t>() < 0) throw Error(what + ": " + v.dump() + " is negative");
    return static_cast<uint64_t>(v.get<int64_t>());
  }
  throw Error(what + ": expected a non-negative integer, got " + v.dump(-1).substr(0, 40));
}

}  // namespace cc
