#pragma once
// REPORT.md's robustness section, from report.json's "robustness" (claims/robustness.h).
#include <nlohmann/json.hpp>

#include <string>

namespace cc::report {

std::string robustness_markdown(const nlohmann::json& robustness);

}  // namespace cc::report
