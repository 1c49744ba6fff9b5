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

Interval bootstrap_mean(const std::vector<double>& values, uint64_t seed, int resamples) {
  if (values.empty()) return {std::nan(""), std::nan("")};
  task::Rng rng(seed, task::stream_id("bootstrap"), values.size());
  std::vector<double> means(static_cast<size_t>(resamples));
  const int64_t n = static_cast<int64_t>(values.size());
  for (auto& m : means) {
    double s = 0;
    for (int64_t i = 0; i < n; ++i) s += values[static_cast<size_t>(rng.below(n))];
    m = s / static_cast<double>(n);
  }
  std::sort(means.begin(), means.end());
  auto at = [&](double q) { return means[static_cast<size_t>(std::floor(q * (resamples - 1)))]; };
  return {at(0.025), at(0.975)};
}

}  // namespace cc::claims
