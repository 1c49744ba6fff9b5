#pragma once
// Intervals the verdicts rest on.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cc::claims {

struct Interval {
  double low = 0, high = 0;
};

// Wilson score interval for k successes in n trials (z = 1.96: 95 %). n = 0 gives [0, 1].
Interval wilson(int64_t k, int64_t n, double z = 1.959963984540054);

// Wilson's interval for an observed proportion p at a real-valued sample size n (> 0): an effective
// size, e.g. Kish's over the sequences of a per-token proportion (analysis/clustered.h).
Interval wilson_at(double p, double n, double z = 1.959963984540054);

// The 95 % interval of p1 - p2 for two independent proportions k1/n1 and k2/n2: Newcombe's hybrid score
// interval (Statistics in Medicine 17, 1998, method 10), from each one's Wilson interval; unlike the
// Wald interval it keeps its coverage near 0 and 1. n1, n2 >= 1.
Interval newcombe_difference(int64_t k1, int64_t n1, int64_t k2, int64_t n2);
// The same from each proportion and its own interval (w1, w2: Wilson's, at an effective size or not).
Interval newcombe_difference(double p1, const Interval& w1, double p2, const Interval& w2);

// An interval over the values several seeds gave, with the method and the coverage it states.
// What a reader may take from it depends on the number of seeds n:
//   n < 5   SeedRange: [lowest, highest]. Not a 95 % interval: it covers the median of the
//           distribution the seeds are drawn from with probability 1 - 2^(1-n) (75 % for 3 seeds,
//           87.5 % for 4), whatever that distribution (continuous), and its mean where that is
//           symmetric. (A percentile bootstrap of 3 values gives this same range, labelled 95 %.)
//   n >= 5  the mean: StudentT, mean +- t(0.975, n-1) s / sqrt(n), 95 % when the seeds' values are
//           normal; the median: OrderStatistics, [x_(k), x_(n+1-k)] with the largest k whose
//           binomial coverage of the median is at least 95 % (k = 1, the range, at 93.75 % for 5 seeds),
//           distribution-free.
// tests/test_stats.cpp simulates each and checks the stated coverage within Monte Carlo error;
// tests/stats_oracle.py checks the numbers against SciPy.
enum class SeedInterval { SeedRange, StudentT, OrderStatistics };
std::string seed_interval_name(SeedInterval m);  // "seed range", "t 95 %", "order statistics"

struct SeedSpread {
  Interval ci;
  SeedInterval method = SeedInterval::SeedRange;
  double coverage = 0;  // the stated probability that ci covers the median (range, order statistics) or mean (t)
};
constexpr size_t kMinSeedsForInterval = 5;  // below this, the seed range, called that
SeedSpread seed_interval(const std::vector<double>& values, bool of_median);

// The pieces, exposed for the tests.
Interval seed_range(const std::vector<double>& values);
double range_coverage(size_t n);                                 // 1 - 2^(1-n)
Interval student_t_interval(const std::vector<double>& values);  // 95 %: analysis::t_critical_95
// [x_(k), x_(n+1-k)] (1-based order statistics) and its exact coverage of the median.
Interval median_order_interval(const std::vector<double>& values, double level, double& coverage);

double mean(const std::vector<double>& values);
double median(std::vector<double> values);

}  // namespace cc::claims
