#pragma once
// REPORT.md's Attribution section (claims/attribution.h), and its two figures: claims × configurations
// pass rates, and each design factor's effect on each claim.
#include <nlohmann/json.hpp>

#include <string>

#include "claims/attribution.h"

namespace cc::report {

// Draws the figures into DIR/figures/ and returns them, {name: {file | text | error, caption}}:
// report.json holds them as its attribution's "figures".
nlohmann::json attribution_figures(const std::string& dir, const claims::AttributionSection& att);

// `figures`: attribution_figures' result ({} when none were drawn).
std::string attribution_markdown(const claims::AttributionSection& att,
                                 const nlohmann::json& figures = nlohmann::json::object());

}  // namespace cc::report
