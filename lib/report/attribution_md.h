#pragma once
// REPORT.md's Attribution section, from report.json's "attribution" (claims/attribution.h), and its
// two figures: claims × configurations pass rates, and each design factor's effect on each claim.
#include <nlohmann/json.hpp>

#include <string>

namespace cc::report {

// Draws the figures into DIR/figures/ and returns them, {name: {file | error, caption}}: report.json
// holds them as att["figures"], which attribution_markdown reads.
nlohmann::json attribution_figures(const std::string& dir, const nlohmann::json& att);

std::string attribution_markdown(const nlohmann::json& att);

}  // namespace cc::report
