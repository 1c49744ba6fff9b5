#include "util/json_input.h"

#include "util/error.h"

namespace cc {

nlohmann::json parse_json(const std::string& text, const std::string& what, bool allow_exceptions) {
  // The callback sees each value's depth before the value is built, so the limit bounds memory.
  const nlohmann::json::parser_callback_t limit = [&what](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > kMaxJsonDepth)
      throw Error(what + ": JSON nested more than " + std::to_string(kMaxJsonDepth) + " levels deep");
    return true;
  };
  return nlohmann::json::parse(text, limit, allow_exceptions);
}

}  // namespace cc
