#include "claims/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "task/rng.h"

namespace cc::claims {

Interval wilson(int64_t k, int64_t n, double z) {
  if (n <= 0) return {0.0, 1.0};
  const double nn = static_cast<double>(n), p = static_cast<double>(k) / nn, z2 = z * z;
  const double denom = 1.0 + z2 / nn;
  const double center = (p + z2 / (2 * nn)) / denom;
  const double half = z / denom * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
  return {std::max(0.0, center - half), std::min(1.0, center + half)};
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

namespace {

// Percentile bootstrap of `stat` over resamples of `values` (with replacement, fixed seed).
template <class Stat>
Interval bootstrap(const std::vector<double>& values, uint64_t seed, int resamples, Stat stat) {
  if (values.empty()) return {std::nan(""), std::nan("")};
  task::Rng rng(seed, task::stream_id("bootstrap"), values.size());
  std::vector<double> stats(static_cast<size_t>(resamples));
  const int64_t n = static_cast<int64_t>(values.size());
  std::vector<double> sample(values.size());
  for (auto& m : stats) {
    for (int64_t i = 0; i < n; ++i) sample[static_cast<size_t>(i)] = values[static_cast<size_t>(rng.below(n))];
    m = stat(sample);
  }
  std::sort(stats.begin(), stats.end());
  auto at = [&](double q) { return stats[static_cast<size_t>(std::floor(q * (resamples - 1)))]; };
  return {at(0.025), at(0.975)};
}

}  // namespace

Interval bootstrap_mean(const std::vector<double>& values, uint64_t seed, int resamples) {
  return bootstrap(values, seed, resamples, [](const std::vector<double>& s) {
    double sum = 0;
    for (double x : s) sum += x;
    return sum / static_cast<double>(s.size());
  });
}

Interval bootstrap_median(const std::vector<double>& values, uint64_t seed, int resamples) {
  return bootstrap(values, seed, resamples, [](const std::vector<double>& s) { return median(s); });
}

}  // namespace cc::claims
