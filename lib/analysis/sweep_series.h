#pragma once
// What a sweep measurement kind sees for one seed: the accuracy counts of every evaluation set
// at each value of the sweep's axis, at one stage of training (the final step, or step 0 for
// the negative control). Built by the claims verifier from a collected sweep summary.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cc::analysis {

struct SetCount {
  int64_t n = 0;
  int64_t correct = 0;
  double accuracy() const { return n > 0 ? static_cast<double>(correct) / static_cast<double>(n) : 0.0; }
};

struct SweepSeriesPoint {
  double x = 0;                          // the axis value
  int64_t step = 0;                      // the training step the counts are from
  std::map<std::string, SetCount> sets;  // evaluation set name -> counts
};

struct SweepSeries {
  std::string sweep, axis;  // "pair_fraction", "task.pair_fraction"
  uint64_t seed = 0;
  std::vector<SweepSeriesPoint> points;  // ascending x
};

}  // namespace cc::analysis
