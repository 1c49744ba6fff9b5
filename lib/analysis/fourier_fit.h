#pragma once
// Fits of a function on the N x N grid of operand pairs (n, m), one column per neuron: the forms the
// papers this engine verifies use to say "a neuron computes a single frequency". Paper-agnostic: the
// caller builds the grid (one row per pair, row g = n * N + m) from its own task.
//   additive:        u(n) + w(m)                                              (row and column means)
//   single_freq:     A cos(wn + α) + B cos(wm + β) + c, w = 2πk/N            (5 linear terms, best k)
//   single_freq_2d:  single_freq plus the products cos/sin(wn)·cos/sin(wm)    (9 terms, best k): the
//                    terms of cos(w(n+m)) and sin(w(n+m)), the degree-2 form Nanda et al. (2023) fit
#include <torch/types.h>

namespace cc::analysis {

struct GridFit {
  torch::Tensor r2;      // [M] float64, R^2 of each column
  torch::Tensor best_k;  // [M] int64, the best frequency in 1..(N-1)/2 (undefined for the additive form)
};

// Y: [N*N, M] float64, every pair of the grid (the single-frequency fits use the grid's orthogonality).
GridFit additive_fit(const torch::Tensor& Y, int N);
GridFit single_frequency_fit(const torch::Tensor& Y, int N, bool with_products);

// R^2 of `pred` for each column of Y [G, M].
torch::Tensor r_squared(const torch::Tensor& Y, const torch::Tensor& pred);

}  // namespace cc::analysis
