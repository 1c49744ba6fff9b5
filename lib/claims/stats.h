#pragma once
// Intervals the verdicts rest on.
#include <cstdint>
#include <utility>
#include <vector>

namespace cc::claims {

struct Interval {
  double low = 0, high = 0;
};

// Wilson score interval for k successes in n trials (z = 1.96: 95 %). n = 0 gives [0, 1].
Interval wilson(int64_t k, int64_t n, double z = 1.959963984540054);

// Percentile bootstrap interval (95 %) of the mean of `values`, resampling them with
// replacement `resamples` times from a fixed seed: deterministic for the same inputs.
Interval bootstrap_mean(const std::vector<double>& values, uint64_t seed = 0, int resamples = 10000);

// The same for the median (for statistics on a grid, such as a sweep's threshold, where a
// mean between grid values means little and a seed may never cross: +infinity).
Interval bootstrap_median(const std::vector<double>& values, uint64_t seed = 0, int resamples = 10000);

double mean(const std::vector<double>& values);
double median(std::vector<double> values);

}  // namespace cc::claims
