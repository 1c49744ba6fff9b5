#include "claims/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <boost/math/distributions/binomial.hpp>

#include "analysis/common.h"

namespace cc::claims {

Interval wilson(int64_t k, int64_t n, double z) {
  if (n <= 0) return {0.0, 1.0};
  const double nn = static_cast<double>(n), p = static_cast<double>(k) / nn, z2 = z * z;
  const double denom = 1.0 + z2 / nn;
  const double center = (p + z2 / (2 * nn)) / denom;
  const double half = z / denom * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
  return {std::max(0.0, center - half), std::min(1.0, center + half)};
}

Interval wilson_at(double p, double n, double z) {
  if (!(n > 0)) return {0.0, 1.0};
  const double z2 = z * z;
  const double denom = 1.0 + z2 / n;
  const double center = (p + z2 / (2 * n)) / denom;
  const double half = z / denom * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  return {std::max(0.0, center - half), std::min(1.0, center + half)};
}

Interval newcombe_difference(int64_t k1, int64_t n1, int64_t k2, int64_t n2) {
  const double p1 = static_cast<double>(k1) / static_cast<double>(n1);
  const double p2 = static_cast<double>(k2) / static_cast<double>(n2);
  return newcombe_difference(p1, wilson(k1, n1), p2, wilson(k2, n2));
}

Interval newcombe_difference(double p1, const Interval& w1, double p2, const Interval& w2) {
  const double d = p1 - p2;
  return {d - std::sqrt((p1 - w1.low) * (p1 - w1.low) + (w2.high - p2) * (w2.high - p2)),
          d + std::sqrt((w1.high - p1) * (w1.high - p1) + (p2 - w2.low) * (p2 - w2.low))};
}

double mean(const std::vector<double>& v) {
  return v.empty() ? std::nan("") : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;  // inf + inf stays inf; inf + x too
}

std::string seed_interval_name(SeedInterval m) {
  switch (m) {
    case SeedInterval::SeedRange:
      return "seed range";
    case SeedInterval::StudentT:
      return "t 95 %";
    case SeedInterval::OrderStatistics:
      return "order statistics";
  }
  return "?";
}

Interval seed_range(const std::vector<double>& values) {
  if (values.empty()) return {std::nan(""), std::nan("")};
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return {*lo, *hi};
}

double range_coverage(size_t n) { return n < 2 ? 0.0 : 1.0 - std::pow(0.5, static_cast<double>(n) - 1.0); }

Interval student_t_interval(const std::vector<double>& values) {
  const size_t n = values.size();
  if (n < 2) return {std::nan(""), std::nan("")};
  const double m = mean(values);
  double ss = 0;
  for (double x : values) ss += (x - m) * (x - m);
  const double se = std::sqrt(ss / static_cast<double>(n - 1) / static_cast<double>(n));
  const double half = analysis::t_critical_95(static_cast<int64_t>(n) - 1) * se;
  return {m - half, m + half};
}

Interval median_order_interval(const std::vector<double>& values, double level, double& coverage) {
  std::vector<double> v = values;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  if (n == 0) {
    coverage = 0;
    return {std::nan(""), std::nan("")};
  }
  // [x_(k), x_(n+1-k)] misses the median when fewer than k values lie below it or fewer than k above:
  // coverage = 1 - 2 P(B <= k-1), B ~ Binomial(n, 1/2). The largest k that still reaches `level`,
  // else k = 1 (the range).
  const boost::math::binomial_distribution<double> b(static_cast<double>(n), 0.5);
  size_t k = 1;
  for (size_t j = 2; 2 * j <= n + 1; ++j)
    if (1.0 - 2.0 * boost::math::cdf(b, static_cast<double>(j - 1)) >= level) k = j;
  coverage = 1.0 - 2.0 * boost::math::cdf(b, static_cast<double>(k - 1));
  return {v[k - 1], v[n - k]};
}

SeedSpread seed_interval(const std::vector<double>& values, bool of_median) {
  SeedSpread s;
  if (values.size() < kMinSeedsForInterval) {
    s.ci = seed_range(values);
    s.coverage = range_coverage(values.size());
    return s;
  }
  if (of_median) {
    s.method = SeedInterval::OrderStatistics;
    s.ci = median_order_interval(values, 0.95, s.coverage);
    return s;
  }
  s.method = SeedInterval::StudentT;
  s.ci = student_t_interval(values);
  s.coverage = 0.95;
  return s;
}

}  // namespace cc::claims
