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

GridFit single_frequency_fit(const torch::Tensor& Y, int N, bool with_products) {
  // Each k's fit makes temporaries the size of Y. Above glibc's mmap threshold (32 MB) every one of them
  // is mapped and zeroed afresh: a 113 x 113 grid of 500 neurons spent minutes in the kernel. So a large
  // Y is fitted a block of columns at a time (a column's fit does not depend on the others); a small one
  // (every "Assign and Add" grid) in one piece, as before, so its values keep their bits.
  const int64_t max_elements = int64_t{1} << 21;  // 16 MB of float64
  if (Y.numel() > max_elements && Y.size(1) > 1) {
    const int64_t cols = std::max<int64_t>(1, max_elements / Y.size(0));
    std::vector<torch::Tensor> r2, best_k;
    for (int64_t start = 0; start < Y.size(1); start += cols) {
      const auto part =
          single_frequency_fit(Y.slice(1, start, std::min(start + cols, Y.size(1))).contiguous(), N, with_products);
      r2.push_back(part.r2);
      best_k.push_back(part.best_k);
    }
    return {torch::cat(r2), torch::cat(best_k)};
  }
  auto n = torch::arange(N, torch::kDouble).repeat_interleave(N), m = torch::arange(N, torch::kDouble).repeat(N);
  auto r2 = torch::full({Y.size(1)}, -1e30, torch::kDouble);
  auto best_k = torch::zeros({Y.size(1)}, torch::kLong);
  for (int k = 1; k <= (N - 1) / 2; ++k) {
    const double w = 2 * M_PI * k / N;
    auto cn = (w * n).cos(), sn = (w * n).sin(), cm = (w * m).cos(), sm = (w * m).sin();
    std::vector<torch::Tensor> terms = {cn, sn, cm, sm, torch::ones_like(n)};
    if (with_products) terms.insert(terms.end(), {cn * cm, cn * sm, sn * cm, sn * sm});
    auto X = torch::stack(terms, 1);                                    // [N*N, 5 or 9]
    auto coef = torch::linalg_solve(X.t().matmul(X), X.t().matmul(Y));  // normal equations
    auto rk = r_squared(Y, X.matmul(coef));
    auto better = rk > r2;
    r2 = torch::where(better, rk, r2);
    best_k = torch::where(better, torch::full_like(best_k, k), best_k);
  }
  return {r2, best_k};
}

}  // namespace cc::analysis
