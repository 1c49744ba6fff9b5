// theory_gradient_terms: which terms of -∇L(W_0) carry it, on the §7 disentangled model
// (analysis/disentangled.h), for §7's closing sentence: "the key-query gradient is dominated by terms
// involving the token with the correct assignment constant, thanks to a constructive interaction with
// the gradient of the MLP for the correct label".
//   pair_dominance  T1d: Appendix C's expansion by pairs (t, t') of the MLP's bilinear form for the
//                   correct label. P* = the pairs that involve t*, R = -∇L - P* (every other term).
//                   D = ⟨P*, Ĝ*⟩ / (|⟨P*, Ĝ*⟩| + |⟨R, Ĝ*⟩|) in [-1, 1]: positive when the t* terms push
//                   along the associative memory, ≥ 1/2 when they also outweigh the rest along it.
//   key_norm_share  T1e: -∇L = Σ_t G_t over key positions (G_t = -E[(∂ℓ/∂s_t) x_t x_T^T]); key t*'s
//                   share of the squared norm, ⟨G_t*, -∇L⟩ / |∇L|² (the shares of all keys sum to 1).
// Judged at the first size; the others are reported. Intervals: jackknife over the batches, t(batches-1).
#include <torch/torch.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "analysis/common.h"
#include "papers/assign_and_add/module/disentangled.h"
#include "papers/assign_and_add/module/module.h"
#include "papers/assign_and_add/module/theory_common.h"

namespace cc::assign_and_add {
using namespace cc::analysis;  // the engine's measurement vocabulary (Registry, Measurement, ...)
namespace {

using theory::Batch;
using theory::Model;

// The per-batch means of the terms, each [D, D] in -∇L's sign.
struct Terms {
  torch::Tensor neg_grad;      // -∇L by autograd
  torch::Tensor expansion;     // -∇L rebuilt from Appendix C's pairs, every label (a check on the split)
  torch::Tensor t_star;        // correct label, pairs involving t*
  torch::Tensor t_star_twice;  // (t*, t*)
  torch::Tensor constructive;  // (t*, m) and (m, t*)
  torch::Tensor other_pairs;   // correct label, pairs without t*
  torch::Tensor key_t_star;    // the key position t*'s terms, G_t*

  Terms operator+(const Terms& o) const {
    return {neg_grad + o.neg_grad,         expansion + o.expansion,       t_star + o.t_star,
            t_star_twice + o.t_star_twice, constructive + o.constructive, other_pairs + o.other_pairs,
            key_t_star + o.key_t_star};
  }
  Terms operator*(double w) const {
    return {neg_grad * w,     expansion * w,   t_star * w,    t_star_twice * w,
            constructive * w, other_pairs * w, key_t_star * w};
  }
};

Terms batch_terms(const Model& model, const nlohmann::json& p, uint64_t seed, int64_t b) {
  const auto W0 = model.W0();
  const auto zero = torch::zeros_like(W0);
  Terms sum{zero, zero, zero, zero, zero, zero, zero};
  theory::for_each_chunk(model, p, seed, b, [&](const Batch& batch, double w) {
    const auto pairs = model.gradient_by_pair(batch, W0);
    const auto [whole, at_target] = model.gradient_by_key(batch, W0);
    sum =
        sum + Terms{-whole,    pairs.expansion, pairs.t_star, pairs.t_star_twice, pairs.constructive, pairs.other_pairs,
                    -at_target} *
                  w;
  });
  return sum;
}

double frobenius(const torch::Tensor& a, const torch::Tensor& b) { return (a * b).sum().item<double>(); }

double pair_dominance(const Terms& t, const torch::Tensor& unit) {
  const double along = frobenius(t.t_star, unit), rest = frobenius(t.neg_grad - t.t_star, unit);
  const double scale = std::abs(along) + std::abs(rest);
  return scale > 0 ? along / scale : 0.0;
}

double key_norm_share(const Terms& t) {
  const double norm2 = frobenius(t.neg_grad, t.neg_grad);
  return norm2 > 0 ? frobenius(t.key_t_star, t.neg_grad) / norm2 : 0.0;
}

struct SizeResult {
  double value = 0, se = 0;
  nlohmann::json details;
};

// The terms of every batch at sizes[i]: the same for both values (T1d and T1e read one computation,
// and so do their controls), so made once per verification through `store`.
std::shared_ptr<const std::vector<Terms>> terms_per_batch(const Model& model, const nlohmann::json& p, size_t i,
                                                          uint64_t seed, ActivationStore* store) {
  return derived<std::vector<Terms>>(store, theory::shared_name("theory_gradient_terms", p, i, seed), [&] {
    std::vector<Terms> per_batch(static_cast<size_t>(p["batches"].get<int64_t>()));
    torch::AutoGradMode enable(true);
    parallel_for(store, per_batch.size(), [&](size_t b) {  // the batches at once, each into its own slot
      per_batch[b] = batch_terms(model, p, seed, static_cast<int64_t>(b));
    });
    const size_t bytes =
        per_batch.empty() ? 0 : per_batch.size() * 7 * static_cast<size_t>(per_batch.front().neg_grad.nbytes());
    return Derived<std::vector<Terms>>{per_batch, bytes};
  });
}

SizeResult measure_size(const Model& model, const std::vector<Terms>& per_batch, const nlohmann::json& p) {
  const int64_t K = p["batches"];
  Terms total = per_batch[0];
  for (int64_t b = 1; b < K; ++b) total = total + per_batch[static_cast<size_t>(b)];
  const Terms mean = total * (1.0 / static_cast<double>(K));
  const auto G = model.G_star();
  const auto unit = G / G.norm();
  const bool dominance = p["value"] == "pair_dominance";
  auto value_of = [&](const Terms& t) { return dominance ? pair_dominance(t, unit) : key_norm_share(t); };
  SizeResult r;
  r.value = value_of(mean);
  std::vector<double> loo;
  for (int64_t b = 0; b < K; ++b)
    loo.push_back(value_of((total + per_batch[static_cast<size_t>(b)] * -1.0) * (1.0 / static_cast<double>(K - 1))));
  r.se = jackknife_se(loo);
  const double scale = mean.neg_grad.abs().max().item<double>();
  const auto correct_label = mean.t_star + mean.other_pairs;
  r.details = {
      {"pair_dominance", pair_dominance(mean, unit)},
      {"key_norm_share", key_norm_share(mean)},
      {"cos(-∇L, G*)", theory::cosine(mean.neg_grad, G)},
      {"along_G*",
       {{"-∇L", frobenius(mean.neg_grad, unit)},
        {"pairs with t*", frobenius(mean.t_star, unit)},
        {"(t*, t*)", frobenius(mean.t_star_twice, unit)},
        {"(t*, m) and (m, t*)", frobenius(mean.constructive, unit)},
        {"(t*, another token)", frobenius(mean.t_star - mean.t_star_twice - mean.constructive, unit)},
        {"pairs without t*", frobenius(mean.other_pairs, unit)},
        {"other labels (p̂ - 1/N) and noise", frobenius(mean.neg_grad - correct_label, unit)},
        {"key t*", frobenius(mean.key_t_star, unit)}}},
      {"share_of_|∇L|²",
       {{"pairs with t*", frobenius(mean.t_star, mean.neg_grad) / frobenius(mean.neg_grad, mean.neg_grad)},
        {"key t*", key_norm_share(mean)}}},
      // The expansion is exact (a check that the split is of the right gradient): its largest
      // difference from autograd's, relative to the gradient's largest entry.
      {"expansion_vs_autograd", scale > 0 ? (mean.expansion - mean.neg_grad).abs().max().item<double>() / scale : 0.0}};
  return r;
}

nlohmann::json parse_terms(ObjectReader r) {
  nlohmann::json p = theory::parse_common(r);
  p["value"] = r.one_of("value", {"pair_dominance", "key_norm_share"}, "pair_dominance");
  p["label"] = r.one_of("label", {"linked", "unlinked"}, "linked");
  theory::check_work(r, p, 0);
  r.finish();
  return p;
}

Measurement measure_terms(const TheoryMeasureInput& in) {
  torch::NoGradGuard outer;  // only the gradients record a graph
  const auto& p = in.params;
  const double t95 = t_critical_95(p["batches"].get<int64_t>() - 1);
  Measurement m;
  m.n = p["samples"];
  nlohmann::json grid = nlohmann::json::array(), un = nlohmann::json::object();
  for (size_t i = 0; i < p["sizes"].size(); ++i) {
    const Model model(theory::sizes_at(p, i));
    const SizeResult s = measure_size(model, *terms_per_batch(model, p, i, in.seed, in.store), p);
    const std::string label = theory::size_label(model.sizes());
    nlohmann::json row = s.details;
    row["size"] = label;
    row["se"] = s.se;
    grid.push_back(row);
    un[p["value"].get<std::string>() + " at " + label] = s.value;
    if (i == 0) {  // the terms behind the value, in REPORT.md as well as report.json
      for (const auto& [term, v] : s.details["along_G*"].items()) un["along Ĝ*: " + term] = v;
      un["cos(-∇L, G*)"] = s.details["cos(-∇L, G*)"];
      un["share of |∇L|²: pairs with t*"] = s.details["share_of_|∇L|²"]["pairs with t*"];
      un["share of |∇L|²: key t*"] = s.details["share_of_|∇L|²"]["key t*"];
    }
    if (i == 0) {
      m.value = s.value;
      m.ci_low = s.value - t95 * s.se;
      m.ci_high = s.value + t95 * s.se;
    }
  }
  m.details = {{"grid", grid}, {"unthresholded", un}};
  return m;
}

}  // namespace

void register_theory_terms(Registry& r) {
  MeasurementKind terms("theory_gradient_terms", Statistic::Scalar, measure_terms,
                        "§7 disentangled model: which terms carry -∇L(W_0): Appendix C's pairs involving t* along "
                        "G* (pair_dominance), or key t*'s share of |∇L|² (key_norm_share)");
  terms.parse_params = parse_terms;
  terms.params_doc = std::string(theory::kCommonParamsDoc) +
                     "label: linked | unlinked (the control: the label is (y + d) mod N, d uniform in 1..N-1)\n"
                     "value: pair_dominance | key_norm_share (default pair_dominance)";
  terms.theory = "disentangled";
  r.add(std::move(terms));
}

}  // namespace cc::assign_and_add
