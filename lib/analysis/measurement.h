#pragma once
// What a measurement kind returns for one checkpoint.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <string>

namespace cc::analysis {

// How the claims verifier turns a measurement into an interval:
//   proportion: `successes` of `n` trials -> Wilson 95 % interval
//   scalar:     a value with no sampling model -> the point value (or the kind's own interval)
enum class Statistic { Proportion, Scalar };

struct Measurement {
  double value = std::numeric_limits<double>::quiet_NaN();
  int64_t n = 0;                                             // sample size (proportions: trials)
  int64_t successes = 0;                                     // proportions only
  double ci_low = std::numeric_limits<double>::quiet_NaN();  // set by a kind with its own interval
  double ci_high = std::numeric_limits<double>::quiet_NaN();
  nlohmann::json details = nlohmann::json::object();  // the data behind the value (e.g. a heatmap)
};

}  // namespace cc::analysis
