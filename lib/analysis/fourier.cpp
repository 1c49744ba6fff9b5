// MLP neurons over the N x N grid of operand pairs (n, m) ("Assign and Add" §5.1, Figure 11).
// Preactivations are the last MLP's hook_pre at the last (answer) position over the operand grid of
// the run's task (train/family.h: OperandGrid): an exhaustive evaluation set through the activation
// store (one sequence per pair, e.g. "Assign and Add"'s all_pairs_0), or the sequences themselves
// (Nanda et al.'s "a b =", M8b's positive control).
// Only active neurons count: positive preactivation on >= 1 % of the grid (neuron_grid.h).
//   mlp_additive_r2  (M8a): R^2 of the additive fit u(n) + w(m) (row and column means)
//   mlp_fourier_r2   (M8b): R^2 of A cos(2πkn/N + α) + B cos(2πkm/N + β) + c, the best k in 1..(N-1)/2,
//                           fitted by least squares (cos and sin of each operand: 5 linear terms)
//   mlp_fourier2d_r2      : the same with the four products cos/sin(2πkn/N)·cos/sin(2πkm/N) (9 terms),
//                           the degree-2 single-frequency form of Nanda et al. (2023)
// `hook: post` fits the activations after the activation function instead.
// The value is the median R^2 over active neurons; details hold the fraction with R^2 >= 0.9, the
// R^2 weighted by each neuron's output norm |W_out[i]|·mean|post_i|, and the histogram of best k.
#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "analysis/common.h"
#include "analysis/fourier_fit.h"
#include "analysis/kinds.h"
#include "analysis/neuron_grid.h"
#include "train/family.h"
#include "util/error.h"

namespace cc::analysis {
namespace {

nlohmann::json parse(ObjectReader r, const char* form) {
  nlohmann::json p;
  p["form"] = form;
  p["eval_seed"] = read_eval_seed(r);
  const double active = r.number("active_fraction", 0.01);
  if (!(active >= 0 && active < 1)) r.fail("active_fraction", "must be in [0, 1)");
  p["active_fraction"] = active;
  // Written only when not the default, so the claims that predate it keep their parameters.
  if (r.one_of("hook", {"pre", "post"}, "pre") == "post") p["hook"] = "post";
  r.finish();
  return p;
}

}  // namespace

GridNeuronFit grid_neuron_fit(torch::Tensor Y, int N, const std::string& form, double active_fraction,
                              const model::Transformer& model) {
  auto active = (Y > 0).to(torch::kDouble).mean(0) >= active_fraction;
  auto idx = active.nonzero().flatten();
  GridNeuronFit result;
  Measurement& out = result.measurement;
  out.n = idx.numel();
  out.details["active_neurons"] = out.n;
  if (out.n == 0) {
    out.value = 0;
    return result;
  }
  Y = Y.index_select(1, idx);
  const bool additive = form == "additive";
  const GridFit fit = additive ? additive_fit(Y, N) : single_frequency_fit(Y, N, form == "fourier_2d");
  const torch::Tensor& r2 = fit.r2;
  if (!additive) {
    std::vector<int64_t> hist(static_cast<size_t>((N - 1) / 2 + 1), 0);
    for (int64_t i = 0; i < fit.best_k.numel(); ++i) hist[static_cast<size_t>(fit.best_k[i].item<int64_t>())]++;
    out.details["key_frequency_histogram"] = hist;  // index k = number of neurons whose best k is k
  }
  // Each neuron's weight in the output: |W_out[i]| times its mean activation on the grid.
  auto post = model.mlp_activation(Y).mean(0);
  auto wout = model.W_out().detach().to(torch::kCPU, torch::kDouble).index_select(0, idx).norm(2, 1);
  auto weight = post * wout;
  out.value = r2.median().item<double>();
  out.details["fraction_r2_at_least_0.9"] = (r2 >= 0.9).to(torch::kDouble).mean().item<double>();
  out.details["output_weighted_r2"] = ((r2 * weight).sum() / weight.sum().clamp_min(1e-12)).item<double>();
  out.details["mean_r2"] = r2.mean().item<double>();
  for (const char* k : {"fraction_r2_at_least_0.9", "output_weighted_r2", "mean_r2", "active_neurons"})
    out.details["unthresholded"][k] = out.details[k];
  if (out.details.contains("key_frequency_histogram"))
    out.details["unthresholded"]["key_frequency_histogram (index = k)"] = out.details["key_frequency_histogram"];
  result.r2 = r2;
  return result;
}

GridPreactivations grid_preactivations(const train::Checkpoint& ck, ActivationStore* store, uint64_t eval_seed) {
  train::OperandGrid grid;
  try {
    grid = train::operand_grid(ck.config);
  } catch (const Error& e) {
    throw Error(ck.path + ": " + e.what());
  }
  const model::ModelConfig& mc = ck.model->config();
  const std::string hook = "blocks." + std::to_string(mc.last_mlp_layer()) + ".mlp.hook_pre";
  if (grid.eval_set.empty()) {
    // Kept as computed (float32 on the model's device); float64 on the CPU for each reader.
    const auto pre = derived<torch::Tensor>(store, ck, "analysis.grid_preactivations", [&] {
      auto t = hook_at_last_position(*ck.model, grid.tokens, hook);  // [N*N, d_mlp]
      return Derived<torch::Tensor>{t, t.nbytes()};
    });
    return {pre->to(torch::kCPU, torch::kDouble), grid.modulus};
  }
  const HookRead read{hook, mc.n_ctx - 1};
  const auto acts = activations(store, ck, {grid.eval_set}, 0, eval_seed, {read});
  std::vector<torch::Tensor> parts;
  acts.for_each([&](const model::ActivationCache& c, size_t, size_t) {
    parts.push_back(c[read.key()].to(torch::kCPU, torch::kDouble));
  });
  return {torch::cat(parts, 0), grid.modulus};
}

namespace {

Measurement measure(const MeasureInput& in) {
  torch::NoGradGuard no_grad;
  const auto& p = in.params;
  auto [Y, N] = grid_preactivations(in.checkpoint, in.activations, p["eval_seed"].get<uint64_t>());  // [N*N, d_mlp]
  if (p.value("hook", "pre") == "post") Y = in.checkpoint.model->mlp_activation(Y);
  GridNeuronFit fit =
      grid_neuron_fit(Y, N, p["form"].get<std::string>(), p["active_fraction"].get<double>(), *in.checkpoint.model);
  Measurement& out = fit.measurement;
  if (out.n == 0) return out;
  const torch::Tensor& r2 = fit.r2;
  // The R^2 distribution over active neurons (and, for the Fourier form, the key frequencies); the
  // report captions it with the claim's own figure of its paper.
  const bool fourier = p["form"] != "additive";
  std::vector<double> r2v(static_cast<size_t>(r2.numel()));
  for (int64_t i = 0; i < r2.numel(); ++i)
    r2v[static_cast<size_t>(i)] = std::round(std::max(r2[i].item<double>(), -1.0) * 1e4) / 1e4;
  out.details["figures"] = nlohmann::json::array(
      {{{"id", "r2"},
        {"type", "histogram"},
        {"bins", 40},
        {"range", {-0.05, 1.0}},
        {"title", std::string("R^2 of the ") + (fourier ? "best single-frequency cosine" : "additive u(n)+w(m)") +
                      " fit, active neurons of the last MLP"},
        {"xlabel", "R^2"},
        {"ylabel", "fraction of neurons"},
        {"value_axis", "x"},  // the measured value is the median R^2: the threshold and controls on x
        {"series", nlohmann::json::array({{{"name", "active neurons"}, {"values", r2v}}})}}});
  if (out.details.contains("key_frequency_histogram")) {
    nlohmann::json labels = nlohmann::json::array();
    for (size_t k = 0; k < out.details["key_frequency_histogram"].size(); ++k) labels.push_back(std::to_string(k));
    out.details["figures"].push_back({{"id", "key_frequencies"},
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
      "eval_seed: seed of the grid's other tokens where the task draws them (an evaluation set's: "
      "e.g. where all_pairs_0's PADs stand; default: the paper's analysis_seed, else 0)\n"
      "active_fraction: a neuron counts if its preactivation is positive on at least this share of the grid (0.01)\n"
      "hook: pre (preactivations, default) | post (after the activation function)";
  // No read declared for every forward: the grid's position is its task's last, known per checkpoint.
  add_modes(r, measure, parse, doc, {},
            {{"mlp_additive_r2", Statistic::Scalar, "additive",
              "median R^2 of the additive fit u(n) + w(m) of active layer-2 MLP preactivations over the N x N grid"},
             {"mlp_fourier_r2", Statistic::Scalar, "fourier",
              "median R^2 of the best single-frequency fit A cos(2πkn/N+α) + B cos(2πkm/N+β) + c"},
             {"mlp_fourier2d_r2", Statistic::Scalar, "fourier_2d",
              "median R^2 of the best single-frequency degree-2 fit: mlp_fourier_r2's terms and the products "
              "cos/sin(2πkn/N)·cos/sin(2πkm/N) (the terms of cos and sin of 2πk(n+m)/N)"}});
}

}  // namespace cc::analysis
