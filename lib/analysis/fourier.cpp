// Layer-2 MLP neurons over the 59 x 59 grid of 0-var inputs (n, m) (§5.1, Figure 11).
// Preactivations are blocks.1.mlp.hook_pre at '=' on all_pairs_0 (one sequence per pair).
// Only active neurons count: positive preactivation on >= 1 % of the grid.
//   mlp_additive_r2 (M8a): R^2 of the additive fit u(n) + w(m) (row and column means)
//   mlp_fourier_r2  (M8b): R^2 of A cos(2πkn/N + α) + B cos(2πkm/N + β) + c, the best k in 1..(N-1)/2,
//                          fitted by least squares (cos and sin of each operand: 5 linear terms)
// The value is the median R^2 over active neurons; details hold the fraction with R^2 >= 0.9, the
// R^2 weighted by each neuron's output norm |W_out[i]|·mean|post_i|, and the histogram of best k.
#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "analysis/common.h"
#include "analysis/kinds.h"

namespace cc::analysis {
namespace {

const HookRead kMlpPreAtEquals{"blocks.1.mlp.hook_pre", task::kEqualsPos};

nlohmann::json parse(ObjectReader r, const char* form) {
  nlohmann::json p;
  p["form"] = form;
  p["eval_seed"] = r.integer_in("eval_seed", kAnalysisSeed, 0, int64_t{1} << 62);
  const double active = r.number("active_fraction", 0.01);
  if (!(active >= 0 && active < 1)) r.fail("active_fraction", "must be in [0, 1)");
  p["active_fraction"] = active;
  r.finish();
  return p;
}

// R^2 of predictions for each column of Y [G, M].
torch::Tensor r_squared(const torch::Tensor& Y, const torch::Tensor& pred) {
  auto ss_res = (Y - pred).pow(2).sum(0);
  auto ss_tot = (Y - Y.mean(0, true)).pow(2).sum(0).clamp_min(1e-12);
  return 1 - ss_res / ss_tot;
}

Measurement measure(const MeasureInput& in) {
  torch::NoGradGuard no_grad;
  const auto& p = in.params;
  const int N = in.checkpoint.config.task.modulus;
  const auto acts = activations(in.activations, in.checkpoint, {"all_pairs_0"}, 0, p["eval_seed"].get<uint64_t>(),
                                {kMlpPreAtEquals});  // (x, y) row-major
  std::vector<torch::Tensor> parts;
  acts.for_each([&](const model::ActivationCache& c, const std::vector<task::Example>&) {
    parts.push_back(c[kMlpPreAtEquals.key()].to(torch::kCPU, torch::kDouble));
  });
  auto Y = torch::cat(parts, 0);  // [N*N, d_mlp], row g = n*N + m
  auto active = (Y > 0).to(torch::kDouble).mean(0) >= p["active_fraction"].get<double>();
  auto idx = active.nonzero().flatten();
  Measurement out;
  out.n = idx.numel();
  out.details["active_neurons"] = out.n;
  if (out.n == 0) {
    out.value = 0;
    return out;
  }
  Y = Y.index_select(1, idx);
  torch::Tensor r2, best_k;
  if (p["form"] == "additive") {
    auto grid = Y.view({N, N, -1});
    auto pred = grid.mean(1, true) + grid.mean(0, true) - grid.mean(std::vector<int64_t>{0, 1}, true);
    r2 = r_squared(Y, pred.reshape({N * N, -1}));
  } else {
    auto n = torch::arange(N, torch::kDouble).repeat_interleave(N), m = torch::arange(N, torch::kDouble).repeat(N);
    r2 = torch::full({Y.size(1)}, -1e30, torch::kDouble);
    best_k = torch::zeros({Y.size(1)}, torch::kLong);
    for (int k = 1; k <= (N - 1) / 2; ++k) {
      const double w = 2 * M_PI * k / N;
      auto X = torch::stack({(w * n).cos(), (w * n).sin(), (w * m).cos(), (w * m).sin(), torch::ones_like(n)}, 1);
      auto coef = torch::linalg_solve(X.t().matmul(X), X.t().matmul(Y));  // normal equations, 5 x 5
      auto rk = r_squared(Y, X.matmul(coef));
      auto better = rk > r2;
      r2 = torch::where(better, rk, r2);
      best_k = torch::where(better, torch::full_like(best_k, k), best_k);
    }
    std::vector<int64_t> hist(static_cast<size_t>((N - 1) / 2 + 1), 0);
    for (int64_t i = 0; i < best_k.numel(); ++i) hist[static_cast<size_t>(best_k[i].item<int64_t>())]++;
    out.details["key_frequency_histogram"] = hist;  // index k = number of neurons whose best k is k
  }
  // Each neuron's weight in the output: |W_out[i]| times its mean activation on the grid.
  auto post = in.checkpoint.model->mlp_activation(Y).mean(0);
  auto wout = in.checkpoint.model->W_out().detach().to(torch::kCPU, torch::kDouble).index_select(0, idx).norm(2, 1);
  auto weight = post * wout;
  out.value = r2.median().item<double>();
  out.details["fraction_r2_at_least_0.9"] = (r2 >= 0.9).to(torch::kDouble).mean().item<double>();
  out.details["output_weighted_r2"] = ((r2 * weight).sum() / weight.sum().clamp_min(1e-12)).item<double>();
  out.details["mean_r2"] = r2.mean().item<double>();
  for (const char* k : {"fraction_r2_at_least_0.9", "output_weighted_r2", "mean_r2", "active_neurons"})
    out.details["unthresholded"][k] = out.details[k];
  if (out.details.contains("key_frequency_histogram"))
    out.details["unthresholded"]["key_frequency_histogram (index = k)"] = out.details["key_frequency_histogram"];
  // Figure 11: the R^2 distribution over active neurons (and, for the Fourier form, the key frequencies).
  const bool fourier = p["form"] != "additive";
  std::vector<double> r2v(static_cast<size_t>(r2.numel()));
  for (int64_t i = 0; i < r2.numel(); ++i)
    r2v[static_cast<size_t>(i)] = std::round(std::max(r2[i].item<double>(), -1.0) * 1e4) / 1e4;
  out.details["figures"] = nlohmann::json::array(
      {{{"id", "r2"},
        {"paper_figure", "Figure 11"},
        {"type", "histogram"},
        {"bins", 40},
        {"range", {-0.05, 1.0}},
        {"title", std::string("R^2 of the ") + (fourier ? "best single-frequency cosine" : "additive u(n)+w(m)") +
                      " fit, active layer-2 MLP neurons"},
        {"xlabel", "R^2"},
        {"ylabel", "fraction of neurons"},
        {"series", nlohmann::json::array({{{"name", "active neurons"}, {"values", r2v}}})}}});
  if (out.details.contains("key_frequency_histogram")) {
    nlohmann::json labels = nlohmann::json::array();
    for (size_t k = 0; k < out.details["key_frequency_histogram"].size(); ++k) labels.push_back(std::to_string(k));
    out.details["figures"].push_back({{"id", "key_frequencies"},
                                      {"paper_figure", "Figure 11"},
                                      {"type", "bars"},
                                      {"title", "best frequency k of each active neuron"},
                                      {"xlabel", "k"},
                                      {"ylabel", "neurons"},
                                      {"labels", labels},
                                      {"values", out.details["key_frequency_histogram"]}});
  }
  return out;
}

}  // namespace

void register_fourier(Registry& r) {
  const std::string doc =
      "eval_seed: seed of the distractors in all_pairs_0 (default 20260531)\n"
      "active_fraction: a neuron counts if its preactivation is positive on at least this share of the grid (0.01)";
  add_modes(r, measure, parse, doc, {kMlpPreAtEquals},
            {{"mlp_additive_r2", Statistic::Scalar, "additive",
              "median R^2 of the additive fit u(n) + w(m) of active layer-2 MLP preactivations over the N x N grid"},
             {"mlp_fourier_r2", Statistic::Scalar, "fourier",
              "median R^2 of the best single-frequency fit A cos(2πkn/N+α) + B cos(2πkm/N+β) + c"}});
}

}  // namespace cc::analysis
