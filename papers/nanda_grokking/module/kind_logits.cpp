// The output side of the algorithm (Nanda et al. 2023, §4.2), with the key frequencies of
// key_frequencies (assumptions.md, 7):
//   logit_cos_fve      the fraction of the logits' variance explained by Σ_k α_k cos(w_k(a+b-c)), one α
//                      per key frequency fitted by least squares; the logits over the whole grid [p², p],
//                      each row centred over c (softmax ignores a constant per input) (13)
//   wl_residual_share  the share of W_L's squared Frobenius norm outside the span of cos/sin(w_k c) of
//                      the key frequencies; W_L = (W_out W_U)^T [p, d_mlp], each column centred over c (14)
#include <torch/torch.h>

#include "papers/nanda_grokking/module/kinds.h"

namespace cc::nanda_grokking {
namespace {

nlohmann::json parse(ObjectReader r, const char* mode) {
  nlohmann::json p;
  p["mode"] = mode;
  p["min_share"] = read_min_share(r);
  r.finish();
  return p;
}

// Fraction of the variance of L [p², p] (rows centred) explained by the cos(w_k(a+b-c)) of `keys`.
double cos_fve(const torch::Tensor& logits, const TaskConfig& task, const std::vector<int64_t>& keys) {
  const int64_t p = task.modulus;
  const auto L = logits - logits.mean(1, true);
  const double total = L.pow(2).sum().item<double>();
  if (keys.empty() || total <= 0) return 0;
  const auto grid = all_pairs(task);
  const auto sum = (grid.tokens.select(1, 0) + grid.tokens.select(1, 1)).to(torch::kDouble);  // a + b, [p²]
  const auto c = torch::arange(p, torch::kDouble);
  std::vector<torch::Tensor> features;  // each [p² * p]: cos(w_k (a + b - c))
  for (int64_t k : keys)
    features.push_back((2 * M_PI * static_cast<double>(k) / p * (sum.unsqueeze(1) - c.unsqueeze(0))).cos().flatten());
  const auto F = torch::stack(features, 1);  // [p² p, K]
  const auto y = L.flatten();
  const auto alpha = torch::linalg_solve(F.t().matmul(F), F.t().matmul(y));
  return 1 - (y - F.matmul(alpha)).pow(2).sum().item<double>() / total;
}

// Share of the squared norm of W_L [p, d_mlp] (columns centred) outside cos/sin(w_k c) of `keys`.
double residual_share(const torch::Tensor& WL, const std::vector<int64_t>& keys) {
  const int64_t p = WL.size(0);
  const auto W = WL - WL.mean(0, true);
  const double total = W.pow(2).sum().item<double>();
  if (total <= 0) return 1;
  if (keys.empty()) return 1;
  const auto c = torch::arange(p, torch::kDouble);
  std::vector<torch::Tensor> dirs;  // unit vectors over c, orthogonal to each other and to the constant
  for (int64_t k : keys)
    for (auto v :
         {(2 * M_PI * static_cast<double>(k) * c / p).cos(), (2 * M_PI * static_cast<double>(k) * c / p).sin()})
      dirs.push_back(v / v.norm());
  const auto U = torch::stack(dirs, 1);  // [p, 2K]
  return (W - U.matmul(U.t().matmul(W))).pow(2).sum().item<double>() / total;
}

analysis::Measurement measure(const analysis::MeasureInput& in) {
  torch::NoGradGuard no_grad;
  const TaskConfig task = task_of(in.checkpoint);
  analysis::Measurement m;
  const auto keys = key_frequencies(in.checkpoint, in.activations, in.params["min_share"].get<double>(), m.details);
  if (in.params["mode"] == "fve") {
    m.n = int64_t{task.modulus} * task.modulus;
    m.value = cos_fve(grid_logits(in.checkpoint, in.activations), task, keys);
  } else {
    const auto WL = neuron_logit_map(in.checkpoint);
    m.n = WL.size(1);
    m.value = residual_share(WL, keys);
  }
  return m;
}

}  // namespace

void register_logits(analysis::Registry& r) {
  analysis::add_modes(
      r, measure, parse, "min_share: a key frequency is the best of at least this share of the active neurons (0.05)",
      {},
      {{"logit_cos_fve", analysis::Statistic::Scalar, "fve",
        "fraction of the logits' variance explained by sum_k alpha_k cos(w_k(a+b-c)) over the key frequencies"},
       {"wl_residual_share", analysis::Statistic::Scalar, "residual",
        "share of W_L's squared norm outside the key frequencies' cos/sin(w_k c) directions"}});
}

}  // namespace cc::nanda_grokking
