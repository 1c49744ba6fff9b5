#pragma once
// REPORT.md's robustness section (claims/robustness.h).
#include <string>

#include "claims/robustness.h"

namespace cc::report {

std::string robustness_markdown(const claims::RobustnessSection& robustness);

}  // namespace cc::report
