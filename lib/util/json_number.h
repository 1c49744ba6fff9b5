#pragma once
// Integers read from JSON that came from a file (checkpoint headers and sidecars, sweep results).
// nlohmann's get<int64_t>() on 1e300 or -2.5 casts a double to an integer, which is undefined
// behaviour; these accept only JSON integers in range and otherwise throw cc::Error naming `what`.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace cc {

int64_t json_int64(const nlohmann::json& v, const std::string& what);
uint64_t json_uint64(const nlohmann::json& v, const std::string& what);

}  // namespace cc
