#pragma once
// JSON from files (sidecars, run.json, metrics lines, summaries, baselines, reports) parsed with a
// bound on nesting. A 15 MB file of nested brackets is within the size cap (file_io.h) yet builds
// one heap node per bracket: 1.3 GB. Nothing claimcheck writes nests deeper than 8 levels.
#include <nlohmann/json.hpp>

#include <string>

namespace cc {

constexpr int kMaxJsonDepth = 64;

// nlohmann::json::parse with a depth limit: nesting past kMaxJsonDepth is a cc::Error naming `what`,
// whatever allow_exceptions says; other syntax errors behave as in nlohmann (a parse_error, or a
// discarded value when allow_exceptions is false).
nlohmann::json parse_json(const std::string& text, const std::string& what, bool allow_exceptions = true);

}  // namespace cc
