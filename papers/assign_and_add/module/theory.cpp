// Kinds over the §7 disentangled model (analysis/disentangled.h): no checkpoint, no training.
//   theory_gradient_alignment  T1a: how much of -∇L(W_0) lies along the associative memory G*:
//                              share = cos²(-∇L(W_0), G*) at the first size, or the smallest
//                              increase of that share from one size of the grid to the next;
//                              T1c: the part of -∇L(W_0)'s component along G* that the key at t*
//                              contributes (key_share), or its smallest value over the grid
//   theory_one_step            T1b: after W_1 = W_0 - η ∇L(W_0), η = VN / (2αρ1ρ2(N-1)), the share
//                              of one-variable sequences whose '=' scores the operand's assignment
//                              highest among the assignment slots, or the model's accuracy
// The population gradient is a Monte Carlo mean over `samples` sequences in `batches` batches;
// its standard error is the jackknife over the batches.
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/common.h"
#include "papers/assign_and_add/module/disentangled.h"
#include "papers/assign_and_add/module/theory_common.h"
#include "papers/assign_and_add/module/module.h"

namespace cc::assign_and_add {
using namespace cc::analysis;  // the engine's measurement vocabulary (Registry, Measurement, ...)
namespace {

using theory::Batch;
using theory::check_work;
using theory::chunk_for;
using theory::for_each_chunk;
using theory::Model;
using theory::parse_common;
using theory::size_label;
using theory::Sizes;
using theory::sizes_at;

// ∇L(W_0) per batch, chunk by chunk; the batches at once on the verification's threads (`store`'s
// pool), each into its own slot.
std::vector<torch::Tensor> batch_gradients(const Model& model, const nlohmann::json& p, uint64_t seed,
                                           ActivationStore* store) {
  const auto W0 = model.W0();
  std::vector<torch::Tensor> out(static_cast<size_t>(p["batches"].get<int64_t>()));
  parallel_for(store, out.size(), [&](size_t b) {
    auto g = torch::zeros_like(W0);
    for_each_chunk(model, p, seed, static_cast<int64_t>(b),
                   [&](const Batch& batch, double w) { g += model.gradient(batch, W0) * w; });
    out[b] = g;
  });
  return out;
}

struct Share {
  double share = 0, cos = 0, se = 0;
  double cos_tag_rows = 0;  // the same cosine with -∇L restricted to the rows Φ1 e_v (the terms G* lives in)
  nlohmann::json blocks;    // where the rest of |∇L|^2 sits
};

// |g|^2 by (row block, column block) of the residual basis, the blocks holding >= 1 %.
nlohmann::json block_shares(const Model& model, const torch::Tensor& g) {
  const Sizes& s = model.sizes();
  const std::vector<std::pair<std::string, std::pair<int, int>>> blocks = {
      {"num", {0, s.N}},
      {"var", {s.N, s.N + s.V}},
      {"pad", {s.N + s.V, s.N + s.V + 1}},
      {"pos", {s.N + s.V + 1, s.N + s.V + 1 + s.T}},
      {"tag", {s.N + s.V + 1 + s.T, model.dim()}}};
  const double total = g.pow(2).sum().item<double>();
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [rn, rr] : blocks)
    for (const auto& [cn, cr] : blocks) {
      const double part =
          g.slice(0, rr.first, rr.second).slice(1, cr.first, cr.second).pow(2).sum().item<double>() / total;
      if (part >= 0.01) out[rn + "×" + cn] = std::round(part * 1e4) / 1e4;
    }
  return out;
}

Share alignment(const Model& model, const std::vector<torch::Tensor>& gs) {
  const auto G = model.G_star();
  auto mean = torch::stack(gs).mean(0);
  Share s;
  s.cos = theory::cosine(-mean, G);
  s.share = s.cos > 0 ? s.cos * s.cos : 0;  // a gradient pointing away from G* has no share along it
  const double K = static_cast<double>(gs.size());
  std::vector<double> loo;
  for (size_t b = 0; b < gs.size(); ++b) {
    auto without = (mean * K - gs[b]) / (K - 1);
    const double c = theory::cosine(-without, G);
    loo.push_back(c > 0 ? c * c : 0);
  }
  s.se = jackknife_se(loo);
  s.blocks = block_shares(model, -mean);
  const int tag0 = model.dim() - model.sizes().V;
  auto rows = torch::zeros_like(mean);
  rows.slice(0, tag0, model.dim()) = -mean.slice(0, tag0, model.dim());
  s.cos_tag_rows = theory::cosine(rows, G);
  return s;
}

// §7's closing sentence: "the key-query gradient is dominated by terms involving the token with the
// correct assignment constant". The part of -∇L(W_0)'s component along G* that the key at t*
// contributes: ⟨-∇L_t*, Ĝ*⟩ / ⟨-∇L, Ĝ*⟩ (0 when -∇L has no positive component along G*), the ratio of
// the Monte Carlo means, with a jackknife over the batches.
struct KeyShare {
  double share = 0, se = 0, along = 0, along_key = 0;  // along: ⟨-∇L, Ĝ*⟩; along_key: the t* terms'
};

KeyShare key_share(const Model& model, const nlohmann::json& p, uint64_t seed, ActivationStore* store) {
  const int64_t batches = p["batches"];
  const auto W0 = model.W0();
  const auto G = model.G_star();
  const auto unit = G / G.norm();
  std::vector<double> full(static_cast<size_t>(batches)), key(full.size());  // per batch, along Ĝ*
  parallel_for(store, full.size(), [&](size_t b) {
    double f = 0, k = 0;
    for_each_chunk(model, p, seed, static_cast<int64_t>(b), [&](const Batch& batch, double w) {
      const auto [whole, at_target] = model.gradient_by_key(batch, W0);
      f -= w * (whole * unit).sum().item<double>();
      k -= w * (at_target * unit).sum().item<double>();
    });
    full[b] = f;
    key[b] = k;
  });
  auto ratio = [](double k, double f) { return f > 0 ? k / f : 0.0; };
  const double K = static_cast<double>(batches);
  double sf = 0, sk = 0;
  for (int64_t b = 0; b < batches; ++b) {
    sf += full[static_cast<size_t>(b)];
    sk += key[static_cast<size_t>(b)];
  }
  KeyShare r;
  r.along = sf / K;
  r.along_key = sk / K;
  r.share = ratio(r.along_key, r.along);
  std::vector<double> loo;
  for (int64_t b = 0; b < batches; ++b)
    loo.push_back(ratio((sk - key[static_cast<size_t>(b)]) / (K - 1), (sf - full[static_cast<size_t>(b)]) / (K - 1)));
  r.se = jackknife_se(loo);
  return r;
}

nlohmann::json parse_alignment(ObjectReader r) {
  nlohmann::json p = parse_common(r);
  p["value"] = r.one_of("value", {"share", "min_increase", "key_share", "min_key_share"}, "share");
  if (p["value"] == "min_increase" && p["sizes"].size() < 2) r.fail("value", "min_increase needs at least two sizes");
  check_work(r, p, 0);
  r.finish();
  return p;
}

// value key_share (at the first size) or min_key_share (the smallest over the grid).
Measurement measure_key_share(const TheoryMeasureInput& in) {
  const auto& p = in.params;
  Measurement m;
  m.n = p["samples"];
  const double t95 = t_critical_95(p["batches"].get<int64_t>() - 1);  // jackknife over `batches` batches
  nlohmann::json grid = nlohmann::json::array(), un = nlohmann::json::object(), xs = nlohmann::json::array(),
                 ys = nlohmann::json::array();
  for (size_t i = 0; i < p["sizes"].size(); ++i) {
    const Model model(sizes_at(p, i));
    KeyShare k;
    {
      torch::AutoGradMode enable(true);
      k = key_share(model, p, in.seed, in.store);
    }
    const std::string label = size_label(model.sizes());
    grid.push_back({{"size", label},
                    {"key_share", k.share},
                    {"se", k.se},
                    {"along_G*", k.along},
                    {"along_G*_from_t*", k.along_key}});
    un["t*-key share along G* at " + label] = k.share;
    xs.push_back(static_cast<double>(i));
    ys.push_back(k.share);
    if (i == 0 || (p["value"] == "min_key_share" && k.share < m.value)) {
      m.value = k.share;
      m.ci_low = k.share - t95 * k.se;
      m.ci_high = k.share + t95 * k.se;
    }
    if (p["value"] == "key_share") break;
  }
  m.details = {{"grid", grid},
               {"unthresholded", un},
               {"figures", nlohmann::json::array(
                               {{{"id", "t1c_key_share"},
                                 {"paper_figure", "§7"},
                                 {"type", "lines"},
                                 {"merge_seeds", true},
                                 {"title", "share of -∇L(W_0) along G* from the key at t*"},
                                 {"xlabel", "grid index (sizes in the report)"},
                                 {"ylabel", "t*-key share"},
                                 {"value_axis", "y"},  // the value: a grid point's share (or their minimum)
                                 {"series", nlohmann::json::array({{{"name", "t* share"}, {"x", xs}, {"y", ys}}})}}})}};
  return m;
}

Measurement measure_alignment(const TheoryMeasureInput& in) {
  torch::NoGradGuard outer;  // only Model::gradient records a graph
  const auto& p = in.params;
  if (p["value"] == "key_share" || p["value"] == "min_key_share") return measure_key_share(in);
  std::vector<Share> shares;
  nlohmann::json grid = nlohmann::json::array(), xs = nlohmann::json::array(), ys = nlohmann::json::array();
  for (size_t i = 0; i < p["sizes"].size(); ++i) {
    const Model model(sizes_at(p, i));
    Share s;
    {
      torch::AutoGradMode enable(true);
      s = alignment(model, batch_gradients(model, p, in.seed, in.store));
    }
    grid.push_back({{"size", size_label(model.sizes())},
                    {"share", s.share},
                    {"se", s.se},
                    {"cos", s.cos},
                    {"cos_within_tag_rows", s.cos_tag_rows},
                    {"beta", model.beta()},
                    {"blocks", s.blocks}});
    xs.push_back(static_cast<double>(i));
    ys.push_back(s.share);
    shares.push_back(s);
  }
  Measurement m;
  m.n = p["samples"];
  // 95 %: the standard errors come from a jackknife over `batches` batches (t with batches - 1 df).
  const double t95 = t_critical_95(p["batches"].get<int64_t>() - 1);
  if (p["value"] == "share") {
    m.value = shares[0].share;
    m.ci_low = m.value - t95 * shares[0].se;
    m.ci_high = m.value + t95 * shares[0].se;
  } else {  // the smallest step along the grid, with the standard error of that difference
    size_t worst = 0;
    for (size_t i = 1; i + 1 < shares.size(); ++i)
      if (shares[i + 1].share - shares[i].share < shares[worst + 1].share - shares[worst].share) worst = i;
    m.value = shares[worst + 1].share - shares[worst].share;
    const double se = std::hypot(shares[worst].se, shares[worst + 1].se);
    m.ci_low = m.value - t95 * se;
    m.ci_high = m.value + t95 * se;
  }
  nlohmann::json un = nlohmann::json::object();
  for (const auto& g : grid) {
    un["share at " + g["size"].get<std::string>()] = g["share"];
    un["cos(-∇L restricted to the Φ1 e_v rows, G*) at " + g["size"].get<std::string>()] = g["cos_within_tag_rows"];
  }
  m.details = {{"grid", grid},
               {"unthresholded", un},
               {"figures", nlohmann::json::array(
                               {{{"id", "t1a_share"},
                                 {"paper_figure", "§7"},
                                 {"type", "lines"},
                                 {"merge_seeds", true},
                                 {"title", "share of |∇L(W_0)|² along G* over the size grid"},
                                 {"xlabel", "grid index (sizes in the report)"},
                                 {"ylabel", "cos²(−∇L, G*)"},
                                 {"yrange", {0, 1.02}},
                                 {"series", nlohmann::json::array({{{"name", "share"}, {"x", xs}, {"y", ys}}})}}})}};
  return m;
}

nlohmann::json parse_one_step(ObjectReader r) {
  nlohmann::json p = parse_common(r);
  p["value"] = r.one_of("value", {"assigned_attention", "accuracy"}, "assigned_attention");
  p["eval_size"] = r.integer_in("eval_size", 10000, 100, 1 << 20);
  check_work(r, p, p["eval_size"].get<int64_t>());
  r.finish();
  return p;
}

struct StepResult {
  double rho1 = 0, rho2 = 0, eta = 0;
  double rho1_after = 0, rho2_after = 0;  // the same attention weights at W_1
  int64_t n = 0, attend = 0, correct_before = 0, correct_after = 0;
  nlohmann::json attend_by_k = nlohmann::json::object();
};

// The attention '=' puts on the constant m and on t*, summed over the chunk, from its scores [B, T].
std::pair<double, double> attention_on_operands(const Model& model, const Batch& b, const torch::Tensor& scores) {
  auto attn = torch::softmax(scores, 1);
  return {attn.select(1, model.sizes().T - 2).sum().item<double>(),
          attn.gather(1, b.target.unsqueeze(1)).sum().item<double>()};
}

StepResult one_step(const Model& model, const nlohmann::json& p, uint64_t seed, ActivationStore* store) {
  const Sizes& s = model.sizes();
  torch::Tensor g;
  {
    torch::AutoGradMode enable(true);
    g = torch::stack(batch_gradients(model, p, seed, store)).mean(0);
  }
  const auto W0 = model.W0();
  const int64_t n = p["eval_size"], chunk = chunk_for(model);
  // Fresh sequences (an index no gradient batch uses), judged chunk by chunk. ρ1 (attention on the
  // constant m) and ρ2 (on t*) are their averages at W_0; η needs them before W_1 exists, so each
  // chunk is drawn again for the second pass rather than held (at T = 64 all of them would be ~1 GB).
  auto fresh = [&](int64_t done) {
    return model.sample(std::min(chunk, n - done), seed, (uint64_t{1} << 40) + static_cast<uint64_t>(done));
  };
  StepResult r;
  for (int64_t done = 0; done < n; done += chunk) {
    const auto b = fresh(done);
    const auto [on_m, on_target] = attention_on_operands(model, b, model.scores(b, W0));
    r.rho1 += on_m / static_cast<double>(n);
    r.rho2 += on_target / static_cast<double>(n);
  }
  r.eta = s.V * s.N / (2 * s.alpha * r.rho1 * r.rho2 * (s.N - 1));
  const auto W1 = W0 - r.eta * g;
  for (int k = s.k_min; k <= s.k_max; ++k) r.attend_by_k[std::to_string(k)] = {{"n", 0}, {"attends_assigned", 0}};
  for (int64_t done = 0; done < n; done += chunk) {
    const auto b = fresh(done);
    const auto scores1 = model.scores(b, W1);  // [B, T]
    const auto [on_m, on_target] = attention_on_operands(model, b, scores1);
    r.rho1_after += on_m / static_cast<double>(n);
    r.rho2_after += on_target / static_cast<double>(n);
    auto sc = scores1.masked_fill(~b.slots, -std::numeric_limits<double>::infinity());
    auto hit = sc.argmax(1) == b.target;
    r.n += b.y.size(0);
    r.attend += hit.sum().item<int64_t>();
    r.correct_before += (model.logits(b, W0).argmax(1) == b.y).sum().item<int64_t>();
    r.correct_after += (model.logits(b, W1).argmax(1) == b.y).sum().item<int64_t>();
    for (int k = s.k_min; k <= s.k_max; ++k) {
      auto at = b.k == k;
      auto& cell = r.attend_by_k[std::to_string(k)];
      cell["n"] = cell["n"].get<int64_t>() + at.sum().item<int64_t>();
      cell["attends_assigned"] = cell["attends_assigned"].get<int64_t>() + hit.masked_select(at).sum().item<int64_t>();
    }
  }
  return r;
}

Measurement measure_one_step(const TheoryMeasureInput& in) {
  torch::NoGradGuard outer;
  const auto& p = in.params;
  const bool attention = p["value"] == "assigned_attention";
  Measurement m;
  nlohmann::json grid = nlohmann::json::array(), un = nlohmann::json::object();
  for (size_t i = 0; i < p["sizes"].size(); ++i) {
    const Model model(sizes_at(p, i));
    // The step is the same for both values (T1b and T1b-acc read one computation): made once per
    // verification through the store.
    const auto step = derived<StepResult>(in.store, theory::shared_name("theory_one_step", p, i, in.seed), [&] {
      return Derived<StepResult>{one_step(model, p, in.seed, in.store), sizeof(StepResult)};
    });
    const StepResult& r = *step;
    const std::string label = size_label(model.sizes());
    grid.push_back({{"size", label},
                    {"rho1", r.rho1},
                    {"rho2", r.rho2},
                    {"eta", r.eta},
                    {"n", r.n},
                    {"rho1_after", r.rho1_after},
                    {"rho2_after", r.rho2_after},
                    {"assigned_attention", static_cast<double>(r.attend) / r.n},
                    {"accuracy_before", static_cast<double>(r.correct_before) / r.n},
                    {"accuracy_after", static_cast<double>(r.correct_after) / r.n},
                    {"by_assignments", r.attend_by_k}});
    un["accuracy before the step at " + label] = static_cast<double>(r.correct_before) / r.n;
    un[(attention ? "accuracy after the step at " : "assigned attention after the step at ") + label] =
        static_cast<double>(attention ? r.correct_after : r.attend) / r.n;
    if (i == 0) {
      m.n = r.n;
      m.successes = attention ? r.attend : r.correct_after;
      m.value = static_cast<double>(m.successes) / static_cast<double>(m.n);
    } else {
      un[(attention ? "assigned attention at " : "accuracy after the step at ") + label] =
          static_cast<double>(attention ? r.attend : r.correct_after) / r.n;
    }
  }
  m.details = {{"grid", grid}, {"unthresholded", un}};
  return m;
}

}  // namespace

void register_theory(Registry& r) {
  const std::string common = theory::kCommonParamsDoc;
  MeasurementKind alignment("theory_gradient_alignment", Statistic::Scalar, measure_alignment,
                            "§7 disentangled model: share of |∇L(W_0)|² along the associative memory G* (cos²), or its "
                            "smallest increase along the size grid");
  alignment.parse_params = parse_alignment;
  alignment.params_doc =
      common +
      "value: share | min_increase | key_share (the part of -∇L's component along G* that the key at "
      "t* contributes) | min_key_share (its smallest value over the grid) (default share)";
  alignment.theory = "disentangled";
  r.add(std::move(alignment));
  MeasurementKind step(
      "theory_one_step", Statistic::Proportion, measure_one_step,
      "§7 disentangled model after one gradient step with the paper's η: share of one-variable sequences "
      "whose '=' scores the operand's assignment highest, or the model's accuracy");
  step.parse_params = parse_one_step;
  step.params_doc = common +
                    "value: assigned_attention | accuracy (default assigned_attention)\n"
                    "eval_size: fresh sequences judged (default 10000)";
  step.theory = "disentangled";
  r.add(std::move(step));
}

}  // namespace cc::assign_and_add
