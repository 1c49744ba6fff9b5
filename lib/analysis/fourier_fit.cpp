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
// C Y C^T's diagonal. One pass for every k and neuron, instead of a 5- or 9-term least squares per k
// (56 of them over the 12 769 points of grokking's grid, for each neuron).
GridFit single_frequency_fit(const torch::Tensor& Y, int N, bool with_products) {
  const int64_t M = Y.size(1), K = (N - 1) / 2;
  const auto grid = Y.t().reshape({M, N, N});  // grid[j][n][m] = Y[n * N + m][j]
  const auto angle = torch::arange(1, K + 1, torch::kDouble).unsqueeze(1) *
                     torch::arange(N, torch::kDouble).unsqueeze(0) * (2 * M_PI / N);  // [K, N]: w_k n
  const auto C = angle.cos(), S = angle.sin();
  const auto rows = grid.sum(2), cols = grid.sum(1);  // [M, N]: sums over m, over n
  const double single = 0.5 * N * N, product = 0.25 * N * N;
  auto explained =
      (rows.matmul(C.t()).pow(2) + rows.matmul(S.t()).pow(2) + cols.matmul(C.t()).pow(2) + cols.matmul(S.t()).pow(2)) /
      single;  // [M, K]
  if (with_products) {
    const auto CY = torch::matmul(C, grid), SY = torch::matmul(S, grid);  // [M, K, N]: sum over n
    explained +=
        ((CY * C).sum(2).pow(2) + (CY * S).sum(2).pow(2) + (SY * C).sum(2).pow(2) + (SY * S).sum(2).pow(2)) / product;
  }
  const auto ss_tot = (Y - Y.mean(0, true)).pow(2).sum(0);                                       // [M]
  const auto r2 = 1 - (ss_tot.unsqueeze(1) - explained) / ss_tot.clamp_min(1e-12).unsqueeze(1);  // [M, K]
  const auto [best, at] = r2.max(1);  // the first k of the largest R^2, as a scan from k = 1 keeps it
  return {best, at + 1};
}

}  // namespace cc::analysis
