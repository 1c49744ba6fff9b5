#pragma once
// A proportion counted over the positions of several sequences (a token's accuracy, an attention
// share): the sequences are the independent units, not the positions, which share their sequence's
// triggers and outputs. The verifier judges such a proportion by Wilson's interval at Kish's effective
// sample size (claims/stats.h, wilson_at) instead of at the number of positions.
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/measurement.h"

namespace cc::analysis {

// Kish's effective sample size of p = sum(k) / sum(n) over m sequences of n_i trials and k_i successes:
// p (1 - p) / se^2, where se^2 = m / (m - 1) * sum_i (k_i - p n_i)^2 / N^2 is the ratio estimator's
// variance over sequences (the cluster-robust variance). Never more than N = sum(n): a design effect
// below 1 is not credited. N where nothing can be estimated (fewer than 2 sequences, p of 0 or 1, no
// spread between sequences).
double clustered_effective_n(const std::vector<int64_t>& n, const std::vector<int64_t>& k);

// Records the sequences behind m's count in its details ("sequences", "effective_n"): what the verifier
// reads to judge it over sequences. n and k per sequence; sequences without a trial are left out.
void record_sequences(Measurement& m, const std::vector<int64_t>& n, const std::vector<int64_t>& k);

// The 95 % interval of a drop in a proportion measured twice on the same sequences (a model and the same
// model with parameters reset): D = sum(k_i - j_i) / N, its cluster-robust variance over the m paired
// sequences m / (m - 1) * sum_i (k_i - j_i - D n_i)^2 / N^2, and D +- 1.96 se. (lower, upper).
std::pair<double, double> paired_drop_interval(const std::vector<int64_t>& n, const std::vector<int64_t>& k,
                                               const std::vector<int64_t>& j);

}  // namespace cc::analysis
