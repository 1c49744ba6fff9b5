#include "analysis/fourier_fit.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace cc::analysis {

torch::Tensor r_squared(const torch::Tensor& Y, const torch::Tensor& pred) {
  auto ss_res = (Y - pred).pow(2).sum(0);
  auto ss_tot = (Y - Y.mean(0, true)).pow(2).sum(0).clamp_min(1e-12);
  return 1 - ss_res / ss_tot;
}

GridFit additive_fit(const torch::Tensor& Y, int N) {
  auto grid = Y.view({N, N, -1});
  auto pred = grid.mean(1, true) + grid.mean(0, true) - grid.mean(std::vector<int64_t>{0, 1}, true);
  return {r_squared(Y, pred.reshape({int64_t{N} * N, -1})), torch::Tensor()};
}

// On the full N x N grid the terms of one frequency k (1 <= k <= (N-1)/2) and the constant are
// orthogonal: the least-squares fit is the sum of the projections on each term, and its explained sum
// of squares is sum_j <Y, X_j>^2 / |X_j|^2 with |cos(wn)|^2 = |sin(wn)|^2 = N^2/2 and |cos(wn) cos(wm)|^2
// (and the other products) = N^2/4. The inner products of every k come from a few products with the
// K x N cosine and sine tables: <Y, cos(wn)> from the grid's row sums, <Y, cos(wn) cos(wm)> from
// sum_m C[k, m] (C Y)[k, m]. One pass for every k and neuron, instead of a 5- or 9-term least squares
// per k (56 of them over the 12 769 points of grokking's grid, for each neuron); Y read as [N, N * M]
// (row n, then m and the neuron), so that C Y is one matrix product over every neuron at once.
GridFit single_frequency_fit(const torch::Tensor& Y, int N, bool with_products) {
  const int64_t M = Y.size(1), K = (N - 1) / 2;
  const auto grid = Y.contiguous().view({N, N, M});  // grid[n][m][j] = Y[n * N + m][j]
  const auto angle = torch::arange(1, K + 1, torch::kDouble).unsqueeze(1) *
                     torch::arange(N, torch::kDouble).unsqueeze(0) * (2 * M_PI / N);  // [K, N]: w_k n
  const auto C = angle.cos(), S = angle.sin();
  const auto rows = grid.sum(1), cols = grid.sum(0);  // [N, M]: sums over m, over n
  const double single = 0.5 * N * N, product = 0.25 * N * N;
  auto explained = (C.matmul(rows).pow(2) + S.matmul(rows).pow(2) + C.matmul(cols).pow(2) + S.matmul(cols).pow(2)) /
                   single;  // [K, M]
  if (with_products) {
    const auto flat = grid.view({N, N * M});
    const auto CY = C.matmul(flat).view({K, N, M}), SY = S.matmul(flat).view({K, N, M});  // sums over n
    const auto cs = torch::stack({C, S}, 1);  // [K, 2, N(m)]: each k's cosine and sine
    // [K, 2, M]: sum over m of (C Y)[k, m] and (S Y)[k, m] against cos(w_k m) and sin(w_k m), one batched
    // product per table (no [K, N, M] temporary).
    explained += (torch::bmm(cs, CY).pow(2).sum(1) + torch::bmm(cs, SY).pow(2).sum(1)) / product;
  }
  // The total sum of squares by a reduction that keeps no [N*N, M] temporary (Welford's, as var() runs).
  const auto ss_tot = Y.var(0, /*unbiased=*/false) * static_cast<double>(Y.size(0));             // [M]
  const auto r2 = 1 - (ss_tot.unsqueeze(0) - explained) / ss_tot.clamp_min(1e-12).unsqueeze(0);  // [K, M]
  const auto [best, at] = r2.max(0);  // the first k of the largest R^2, as a scan from k = 1 keeps it
  return {best, at + 1};
}

}  // namespace cc::analysis
