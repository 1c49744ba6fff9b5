// The MLP neurons as the paper reads them (Nanda et al. 2023, §4.3-4.4):
//   neuron_key_frequency_share  the share of all d_mlp neurons whose post-ReLU activations over the grid
//                               are explained at R^2 >= `r2` by the degree-2 fit in one frequency that is a
//                               key frequency (assumptions.md, 12; the paper: 433 of 512 at 0.85)
//   neuron_fit_accuracy         the accuracy on `split` when every active neuron's activation is replaced by
//                               its best single-frequency degree-2 fit (assumptions.md, 15)
// The fit is analysis/fourier_fit.h's single_freq_2d; the key frequencies are key_frequencies' (7).
#include <torch/torch.h>

#include <algorithm>

#include "analysis/fourier_fit.h"
#include "papers/nanda_grokking/module/kinds.h"

namespace cc::nanda_grokking {
namespace {

nlohmann::json parse(ObjectReader r, const char* mode) {
  nlohmann::json p;
  p["mode"] = mode;
  p["min_share"] = read_min_share(r);
  if (std::string(mode) == "share") {
    p["r2"] = r.number("r2", 0.85);
    if (!(p["r2"].get<double>() > 0 && p["r2"].get<double>() < 1)) r.fail("r2", "must be in (0, 1)");
  } else {
    p["split"] = r.one_of("split", {"train", "test"}, "train");
  }
  r.finish();
  return p;
}

// The degree-2 single-frequency basis at frequency k over the N x N grid [N², 9] (row g = a * N + b).
torch::Tensor degree2_basis(int N, int64_t k) {
  auto a = torch::arange(N, torch::kDouble).repeat_interleave(N), b = torch::arange(N, torch::kDouble).repeat(N);
  const double w = 2 * M_PI * static_cast<double>(k) / N;
  auto ca = (w * a).cos(), sa = (w * a).sin(), cb = (w * b).cos(), sb = (w * b).sin();
  return torch::stack({ca, sa, cb, sb, torch::ones_like(a), ca * cb, ca * sb, sa * cb, sa * sb}, 1);
}

// Each column of Y [N², M] replaced by its least-squares fit at its own frequency best_k[j].
torch::Tensor fitted(const torch::Tensor& Y, const torch::Tensor& best_k, int N) {
  auto out = torch::empty_like(Y);
  for (int64_t k = 1; k <= (N - 1) / 2; ++k) {
    const auto cols = (best_k == k).nonzero().flatten();
    if (cols.numel() == 0) continue;
    const auto X = degree2_basis(N, k);
    const auto Yk = Y.index_select(1, cols);
    const auto coef = torch::linalg_solve(X.t().matmul(X), X.t().matmul(Yk));  // as fourier_fit's normal equations
    out.index_copy_(1, cols, X.matmul(coef));
  }
  return out;
}

analysis::Measurement measure(const analysis::MeasureInput& in) {
  torch::NoGradGuard no_grad;
  const TaskConfig task = task_of(in.checkpoint);
  const int p = task.modulus;
  analysis::Measurement m;
  // The activations, the active neurons and their fits, as the key frequencies were read from them.
  const auto neurons = neuron_frequencies(in.checkpoint, in.activations, in.params["min_share"].get<double>());
  neurons->describe(m.details);
  const auto post = neuron_activations(in.checkpoint, in.activations);  // [p², d_mlp]
  const auto& active = neurons->active;
  const auto& fit = neurons->fit;
  if (in.params["mode"] == "share") {
    auto is_key = torch::zeros_like(fit.best_k, torch::kBool);
    for (int64_t k : neurons->keys) is_key = is_key.logical_or(fit.best_k == k);
    const auto explained = (fit.r2 >= in.params["r2"].get<double>()).logical_and(is_key);
    m.n = post.size(1);  // every neuron: a dead one is not explained
    m.successes = explained.sum().item<int64_t>();
    m.value = static_cast<double>(m.successes) / static_cast<double>(m.n);
    m.details["unthresholded"] = {{"neurons explained", m.successes}, {"neurons", m.n}};
    return m;
  }
  // Replace every active neuron by its fit; the logits change by (fit - post) W_out W_U (no LayerNorm).
  auto replaced = post.clone();
  if (active.numel()) replaced.index_copy_(1, active, fitted(post.index_select(1, active), fit.best_k, p));
  const auto full_logits = grid_logits(in.checkpoint, in.activations);  // [p², p]
  const auto logits = full_logits + (replaced - post).matmul(neuron_logit_map(in.checkpoint).t());
  const auto grid = all_pairs(task);
  const auto parts = split(task);
  const auto rows = in.params["split"] == "train" ? parts.train : parts.test;
  const auto targets = grid.targets.index_select(0, rows);
  const auto l = logits.index_select(0, rows), full = full_logits.index_select(0, rows);
  m.n = rows.numel();
  m.successes = l.argmax(1).eq(targets).sum().item<int64_t>();
  m.value = static_cast<double>(m.successes) / static_cast<double>(m.n);
  const double loss = torch::nn::functional::cross_entropy(l, targets).item<double>();
  const double full_loss = torch::nn::functional::cross_entropy(full, targets).item<double>();
  m.details["replaced_neurons"] = active.numel();
  m.details["loss_replaced"] = loss;
  m.details["loss_full"] = full_loss;
  m.details["full_accuracy"] = full.argmax(1).eq(targets).to(torch::kDouble).mean().item<double>();
  return m;
}

}  // namespace

void register_neurons(analysis::Registry& r) {
  const std::string doc =
      "min_share: a key frequency is the best of at least this share of the active neurons (0.05)\n"
      "r2: neuron_key_frequency_share: the R^2 a neuron's fit must reach (0.85, the paper's)\n"
      "split: neuron_fit_accuracy: train | test (train)";
  analysis::add_modes(r, measure, parse, doc, {},
                      {{"neuron_key_frequency_share", analysis::Statistic::Proportion, "share",
                        "share of all MLP neurons explained (R^2 >= r2) by a degree-2 fit in one key frequency"},
                       {"neuron_fit_accuracy", analysis::Statistic::Proportion, "replace",
                        "accuracy with every active neuron replaced by its best single-frequency degree-2 fit"}});
}

}  // namespace cc::nanda_grokking
