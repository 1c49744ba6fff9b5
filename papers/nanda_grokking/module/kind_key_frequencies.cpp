// key_frequency_loss: whether the logits are made of the key frequencies (Nanda et al. 2023, §5.1).
// Key frequencies: those that are the best single frequency (degree-2 fit, analysis/fourier_fit.h) of
// the post-ReLU activations of at least `min_share` of the active MLP neurons (assumptions.md, 7).
// For each answer c, the logits over the p² grid are projected onto the constant and the unit vectors
// cos(w_k(a+b)), sin(w_k(a+b)) of the key frequencies (orthogonal over the full grid):
//   restricted_loss      cross-entropy of the projection on `split` (default test)
//   excluded_loss_ratio  cross-entropy of the logits minus their cos/sin parts, over the full model's,
//                        on `split` (default train)
//   excluded_accuracy_drop  train accuracy of the full logits minus that of the logits less those parts
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/common.h"
#include "analysis/fourier_fit.h"
#include "papers/nanda_grokking/module/kinds.h"

namespace cc::nanda_grokking {
namespace {

nlohmann::json parse(ObjectReader r, const char* mode) {
  nlohmann::json p;
  p["mode"] = mode;
  p["split"] = r.one_of("split", {"train", "test"}, std::string(mode) == "restricted" ? "test" : "train");
  if (std::string(mode) == "excluded_drop" && p["split"] != "train")
    r.fail("split", "the accuracy lost is read on the pairs the model was trained on: train");
  p["min_share"] = read_min_share(r);
  r.finish();
  return p;
}

}  // namespace

double read_min_share(ObjectReader& r) {
  const double share = r.number("min_share", 0.05);
  if (!(share > 0 && share <= 1)) r.fail("min_share", "must be in (0, 1]");
  return share;
}

void NeuronFrequencies::describe(nlohmann::json& details) const {
  if (active.numel() == 0) return;
  details["active_neurons"] = active.numel();
  details["key_frequencies"] = keys;
}

std::shared_ptr<const NeuronFrequencies> neuron_frequencies(const train::Checkpoint& ck,
                                                            analysis::ActivationStore* store, double min_share) {
  // The name carries min_share exactly (%.17g): two claims share the value only when it is the same.
  char name[96];
  std::snprintf(name, sizeof name, "nanda_grokking.neuron_frequencies min_share=%.17g", min_share);
  return analysis::derived<NeuronFrequencies>(store, ck, name, [&] {
    torch::NoGradGuard no_grad;
    const int p = task_of(ck).modulus;
    NeuronFrequencies n;
    const auto post = neuron_activations(ck, store);  // [p², d_mlp]
    n.active = ((post > 0).to(torch::kDouble).mean(0) >= 0.01).nonzero().flatten();
    if (n.active.numel() == 0) {
      n.fit = {torch::zeros({0}, torch::kDouble), torch::zeros({0}, torch::kLong)};
      return analysis::Derived<NeuronFrequencies>{n, 0};
    }
    n.fit = analysis::single_frequency_fit(post.index_select(1, n.active), p, /*with_products=*/true);
    const auto counts = torch::bincount(n.fit.best_k, {}, (p - 1) / 2 + 1);
    for (int64_t k = 1; k < counts.numel(); ++k)
      if (counts[k].item<double>() >= min_share * static_cast<double>(n.active.numel())) n.keys.push_back(k);
    const size_t bytes = n.active.nbytes() + n.fit.r2.nbytes() + n.fit.best_k.nbytes();
    return analysis::Derived<NeuronFrequencies>{n, bytes};
  });
}

std::vector<int64_t> key_frequencies(const train::Checkpoint& ck, analysis::ActivationStore* store, double min_share,
                                     nlohmann::json& details) {
  const auto n = neuron_frequencies(ck, store, min_share);
  n->describe(details);
  return n->keys;
}

KeyFrequencyLosses key_frequency_losses(const train::Checkpoint& ck, analysis::ActivationStore* store,
                                        const std::vector<int64_t>& keys, bool on_train) {
  torch::NoGradGuard no_grad;
  const TaskConfig task = task_of(ck);
  const int p = task.modulus;
  const auto logits = grid_logits(ck, store);  // [p², p]
  const auto grid = all_pairs(task);
  const auto sum = (grid.tokens.select(1, 0) + grid.tokens.select(1, 1)).to(torch::kDouble);  // a + b, [p²]
  std::vector<torch::Tensor> dirs;  // unit vectors over the grid
  for (int64_t k : keys)
    for (auto v : {(2 * M_PI * k * sum / p).cos(), (2 * M_PI * k * sum / p).sin()}) dirs.push_back(v / v.norm());
  auto trig = dirs.empty() ? torch::zeros_like(logits) : [&] {
    auto U = torch::stack(dirs, 1);  // [p², 2K]
    return U.matmul(U.t().matmul(logits));
  }();
  const auto parts = split(task);
  const auto rows = on_train ? parts.train : parts.test;
  const auto targets = grid.targets.index_select(0, rows);
  auto loss_on = [&](const torch::Tensor& l) {
    return torch::nn::functional::cross_entropy(l.index_select(0, rows), targets).item<double>();
  };
  auto accuracy_on = [&](const torch::Tensor& l) {
    return l.index_select(0, rows).argmax(1).eq(targets).to(torch::kDouble).mean().item<double>();
  };
  KeyFrequencyLosses r;
  r.n = rows.numel();
  r.full = loss_on(logits);
  r.restricted = loss_on(trig + logits.mean(0, true));  // the key frequencies' parts plus the constant
  r.excluded = loss_on(logits - trig);
  r.full_accuracy = accuracy_on(logits);
  r.excluded_accuracy = accuracy_on(logits - trig);
  return r;
}

namespace {

analysis::Measurement measure(const analysis::MeasureInput& in) {
  torch::NoGradGuard no_grad;
  analysis::Measurement m;
  const auto keys = key_frequencies(in.checkpoint, in.activations, in.params["min_share"].get<double>(), m.details);
  const KeyFrequencyLosses l = key_frequency_losses(in.checkpoint, in.activations, keys, in.params["split"] == "train");
  m.n = l.n;
  m.details["full_loss"] = l.full;
  m.details["full_accuracy"] = l.full_accuracy;
  m.details["excluded_accuracy"] = l.excluded_accuracy;
  if (in.params["mode"] == "restricted") {
    m.value = l.restricted;
  } else if (in.params["mode"] == "excluded_drop") {
    m.details["excluded_loss"] = l.excluded;
    m.value = l.full_accuracy - l.excluded_accuracy;
  } else {
    m.details["excluded_loss"] = l.excluded;
    m.value = l.excluded / std::max(l.full, 1e-300);
  }
  return m;
}

}  // namespace

void register_key_frequencies(analysis::Registry& r) {
  const std::string doc =
      "split: train | test (restricted_loss: test; excluded_loss_ratio: train)\n"
      "min_share: a key frequency is the best of at least this share of the active neurons (0.05)";
  analysis::add_modes(
      r, measure, parse, doc, {},
      {{"restricted_loss", analysis::Statistic::Scalar, "restricted",
        "cross-entropy of the logits projected onto the key frequencies' cos/sin(w(a+b)) and the constant"},
       {"excluded_loss_ratio", analysis::Statistic::Scalar, "excluded",
        "cross-entropy with the key frequencies' cos/sin(w(a+b)) parts removed, over the full model's (superseded "
        "as N7b's reading: a memorising model passes it, assumptions.md 10)"},
       {"excluded_accuracy_drop", analysis::Statistic::Scalar, "excluded_drop",
        "train accuracy of the full model minus that of its logits with the key frequencies' cos/sin(w(a+b)) parts "
        "removed: the share of its training pairs it loses without them"}});
}

}  // namespace cc::nanda_grokking
