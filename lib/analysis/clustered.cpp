#include "analysis/clustered.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace cc::analysis {

double clustered_effective_n(const std::vector<int64_t>& n, const std::vector<int64_t>& k) {
  if (n.size() != k.size())
    throw Error("clustered_effective_n: " + std::to_string(n.size()) + " counts of trials, " +
                std::to_string(k.size()) + " of successes");
  double trials = 0, successes = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    trials += static_cast<double>(n[i]);
    successes += static_cast<double>(k[i]);
  }
  const double m = static_cast<double>(n.size());
  if (m < 2 || trials <= 0) return trials;
  const double p = successes / trials;
  double residuals = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    const double r = static_cast<double>(k[i]) - p * static_cast<double>(n[i]);
    residuals += r * r;
  }
  const double variance = m / (m - 1) * residuals / (trials * trials);
  if (!(variance > 0) || p <= 0 || p >= 1) return trials;
  return std::min(trials, p * (1 - p) / variance);
}

void record_sequences(Measurement& m, const std::vector<int64_t>& n, const std::vector<int64_t>& k) {
  std::vector<int64_t> with_n, with_k;  // the sequences that hold a trial
  for (size_t i = 0; i < n.size(); ++i)
    if (n[i] > 0) {
      with_n.push_back(n[i]);
      with_k.push_back(k[i]);
    }
  m.details["sequences"] = static_cast<int64_t>(with_n.size());
  m.details["effective_n"] = clustered_effective_n(with_n, with_k);
}

std::pair<double, double> paired_drop_interval(const std::vector<int64_t>& n, const std::vector<int64_t>& k,
                                               const std::vector<int64_t>& j) {
  if (n.size() != k.size() || n.size() != j.size())
    throw Error("paired_drop_interval: the two measurements counted different sequences");
  double trials = 0, drop = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    trials += static_cast<double>(n[i]);
    drop += static_cast<double>(k[i] - j[i]);
  }
  const double m = static_cast<double>(n.size());
  if (m < 2 || trials <= 0) return {-1.0, 1.0};  // nothing to estimate a spread from
  const double d = drop / trials;
  double residuals = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    const double r = static_cast<double>(k[i] - j[i]) - d * static_cast<double>(n[i]);
    residuals += r * r;
  }
  const double se = std::sqrt(m / (m - 1) * residuals) / trials;
  constexpr double z = 1.959963984540054;
  return {std::max(-1.0, d - z * se), std::min(1.0, d + z * se)};
}

}  // namespace cc::analysis
