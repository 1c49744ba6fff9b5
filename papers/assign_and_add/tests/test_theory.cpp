// The §7 disentangled model: its structure, and its autograd gradient against a gradient
// written out by hand (the chain rule in plain loops) on a tiny instance, N = 5, V = 2, T = 6.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <vector>

#include "papers/assign_and_add/module/disentangled.h"

using namespace cc::assign_and_add::theory;

namespace {

Sizes tiny() {
  Sizes s;
  s.N = 5;
  s.V = 2;
  s.T = 6;
  s.k_min = 1;
  s.k_max = 2;
  s.alpha = 0.7;  // not small: the check covers every term of the chain rule
  return s;
}

// dL/dW by hand for the mean cross-entropy over the batch.
std::vector<double> hand_gradient(const Model& model, const Batch& b, const torch::Tensor& Wt) {
  const Sizes& s = model.sizes();
  const int D = model.dim(), T = s.T, N = s.N, F = (N - 1) / 2;
  const auto Xt = model.dense(b);
  const int64_t B = Xt.size(0);
  auto X = Xt.accessor<double, 3>();
  auto W = Wt.accessor<double, 2>();
  std::vector<double> dW(static_cast<size_t>(D * D), 0.0);
  for (int64_t i = 0; i < B; ++i) {
    std::vector<double> sc(T), sigma(T), mixed(D, 0.0);
    for (int t = 0; t < T; ++t) {
      double v = 0;
      for (int a = 0; a < D; ++a)
        for (int c = 0; c < D; ++c) v += X[i][t][a] * W[a][c] * X[i][T - 1][c];
      sc[t] = v;
    }
    double mx = sc[0], norm = 0;
    for (double v : sc) mx = std::max(mx, v);
    for (int t = 0; t < T; ++t) norm += sigma[t] = std::exp(sc[t] - mx);
    for (int t = 0; t < T; ++t) sigma[t] /= norm;
    for (int t = 0; t < T; ++t)
      for (int a = 0; a < D; ++a) mixed[a] += sigma[t] * X[i][t][a];
    std::vector<double> re(F, 0.0), im(F, 0.0);
    for (int f = 1; f <= F; ++f)
      for (int n = 0; n < N; ++n) {
        re[f - 1] += mixed[n] * std::cos(2 * M_PI * f * n / N);
        im[f - 1] += mixed[n] * std::sin(2 * M_PI * f * n / N);
      }
    std::vector<double> logit(N, 0.0), p(N);
    for (int k = 0; k < N; ++k)
      for (int f = 1; f <= F; ++f) {
        const double th = 2 * M_PI * f * k / N;
        logit[k] +=
            s.alpha / N *
            ((re[f - 1] * re[f - 1] - im[f - 1] * im[f - 1]) * std::cos(th) + 2 * re[f - 1] * im[f - 1] * std::sin(th));
      }
    double lm = logit[0], z = 0;
    for (double v : logit) lm = std::max(lm, v);
    for (int k = 0; k < N; ++k) z += p[k] = std::exp(logit[k] - lm);
    const int64_t y = b.y[i].item<int64_t>();
    std::vector<double> dre(F, 0.0), dim(F, 0.0);
    for (int k = 0; k < N; ++k) {
      const double dl = (p[k] / z - (k == y ? 1.0 : 0.0)) / static_cast<double>(B);
      for (int f = 1; f <= F; ++f) {
        const double th = 2 * M_PI * f * k / N, c = std::cos(th), sn = std::sin(th);
        dre[f - 1] += dl * s.alpha / N * (2 * re[f - 1] * c + 2 * im[f - 1] * sn);
        dim[f - 1] += dl * s.alpha / N * (-2 * im[f - 1] * c + 2 * re[f - 1] * sn);
      }
    }
    std::vector<double> dmixed(D, 0.0);
    for (int n = 0; n < N; ++n)
      for (int f = 1; f <= F; ++f)
        dmixed[n] += dre[f - 1] * std::cos(2 * M_PI * f * n / N) + dim[f - 1] * std::sin(2 * M_PI * f * n / N);
    std::vector<double> dsigma(T, 0.0);
    double avg = 0;
    for (int t = 0; t < T; ++t) {
      for (int a = 0; a < D; ++a) dsigma[t] += dmixed[a] * X[i][t][a];
      avg += sigma[t] * dsigma[t];
    }
    for (int t = 0; t < T; ++t) {
      const double ds = sigma[t] * (dsigma[t] - avg);
      for (int a = 0; a < D; ++a)
        for (int c = 0; c < D; ++c) dW[static_cast<size_t>(a * D + c)] += ds * X[i][t][a] * X[i][T - 1][c];
    }
  }
  return dW;
}

}  // namespace

TEST(Theory, GradientMatchesTheChainRuleByHand) {
  const Model model(tiny());
  const auto batch = model.sample(24, 7, 0);
  torch::manual_seed(3);
  const auto W = model.W0() + 0.3 * torch::randn({model.dim(), model.dim()}, torch::kFloat64);  // a generic point
  const auto g = model.gradient(batch, W);
  const auto hand = hand_gradient(model, batch, W);
  auto ga = g.accessor<double, 2>();
  double worst = 0, scale = 0;
  for (int a = 0; a < model.dim(); ++a)
    for (int c = 0; c < model.dim(); ++c) {
      worst = std::max(worst, std::abs(ga[a][c] - hand[static_cast<size_t>(a * model.dim() + c)]));
      scale = std::max(scale, std::abs(ga[a][c]));
    }
  EXPECT_GT(scale, 1e-4);
  EXPECT_LT(worst, 1e-12 + 1e-9 * scale) << "largest |autograd - hand| " << worst << " of " << scale;
}

// The split by key position (T1c) sums to the autograd gradient, and its t* part is the t* terms alone:
// with every other key's ∂L/∂s_t removed by hand, the same matrix.
TEST(Theory, GradientByKeySumsToTheGradientAndIsolatesTStar) {
  const Model model(tiny());
  const auto batch = model.sample(24, 7, 0);
  torch::manual_seed(3);
  const auto W = model.W0() + 0.3 * torch::randn({model.dim(), model.dim()}, torch::kFloat64);
  const auto [whole, at_target] = model.gradient_by_key(batch, W);
  const auto g = model.gradient(batch, W);
  EXPECT_LT((whole - g).abs().max().item<double>(), 1e-12 + 1e-9 * g.abs().max().item<double>());
  // By hand: ∂L/∂s from autograd on the scores, kept at t* only.
  auto s = model.scores(batch, W).detach().set_requires_grad(true);
  torch::nn::functional::cross_entropy(model.logits_from_scores(batch, s), batch.y).backward();
  const auto mask = torch::zeros_like(s).scatter_(1, batch.target.unsqueeze(1), 1.0);
  const auto gs = s.grad() * mask;  // [B, T]
  const auto X = model.dense(batch);
  const auto q = X.select(1, model.sizes().T - 1);
  const auto hand = (gs.unsqueeze(2) * X).sum(1).t().matmul(q);
  EXPECT_LT((at_target - hand).abs().max().item<double>(), 1e-15 + 1e-12 * hand.abs().max().item<double>());
  EXPECT_GT(at_target.abs().max().item<double>(), 0.0);
  EXPECT_GT((whole - at_target).abs().max().item<double>(), 0.0);  // the other keys contribute too
}

TEST(Theory, InitialScoresAreTheZeroVariableMechanism) {
  const Model model(tiny());
  const auto batch = model.sample(50, 1, 0);
  const auto s = model.scores(batch, model.W0());  // [B, T]
  const double beta = model.beta();
  EXPECT_NEAR(beta, std::log(6.0), 1e-12);
  for (int64_t i = 0; i < 50; ++i) {
    EXPECT_DOUBLE_EQ(s[i][5].item<double>(), 0.0);       // '=' itself
    EXPECT_DOUBLE_EQ(s[i][4].item<double>(), 2 * beta);  // the constant operand m: position + number
    EXPECT_DOUBLE_EQ(s[i][3].item<double>(), beta);      // the operand variable: position only
    for (int t = 0; t < 3; ++t)                          // assignments: a number; PAD: nothing
      EXPECT_DOUBLE_EQ(s[i][t].item<double>(), batch.slots[i][t].item<bool>() ? beta : 0.0);
    EXPECT_TRUE(batch.slots[i][batch.target[i].item<int64_t>()].item<bool>());
  }
}

TEST(Theory, IdealMlpAddsTwoConstantsWithEqualWeights) {
  // '=' attending only to two positions that carry constants a and m: the model answers a + m.
  Sizes s = tiny();
  s.N = 11;
  const Model model(s);
  auto batch = model.sample(40, 2, 0);
  auto W = torch::zeros({model.dim(), model.dim()}, torch::kFloat64);
  // Remove the other assignments' constants, then score every number token 40 from '=': the
  // attention splits evenly between t* and m.
  for (int64_t i = 0; i < 40; ++i)
    for (int t = 0; t < s.T - 3; ++t)
      if (batch.slots[i][t].item<bool>() && t != batch.target[i].item<int64_t>()) batch.ids[i][t].fill_(model.dim());
  const int eq = s.N + s.V + 1 + s.T - 1;
  for (int n = 0; n < s.N; ++n) W[n][eq] = 40.0;
  auto pred = model.logits(batch, W).argmax(1);
  EXPECT_TRUE(pred.equal(batch.y)) << pred << batch.y;
}

TEST(Theory, ScrambledTagsCarryNoVariableIdentity) {
  Sizes s = tiny();
  s.V = 4;
  s.k_max = 3;
  s.scrambled = true;
  const Model model(s);
  const auto b = model.sample(4000, 5, 0);
  const auto X = model.dense(b);
  // The tag the operand's constant carries matches the query's tag about 1/V of the time.
  const int tag0 = s.N + s.V + 1 + s.T;
  int64_t same = 0;
  for (int64_t i = 0; i < 4000; ++i) {
    auto carried = X[i][b.target[i].item<int64_t>()].slice(0, tag0, tag0 + s.V).argmax().item<int64_t>();
    auto query = X[i][s.T - 1].slice(0, tag0, tag0 + s.V).argmax().item<int64_t>();
    same += carried == query;
  }
  EXPECT_NEAR(static_cast<double>(same) / 4000, 0.25, 0.03);
}

// Appendix C's pair expansion (T1d) rebuilds the autograd gradient exactly; its correct-label part is
// α E[∇M_y], computed here by autograd on the correct label's logit alone.
TEST(Theory, GradientByPairRebuildsTheGradientAndSplitsTheCorrectLabel) {
  const Model model(tiny());
  const auto batch = model.sample(24, 7, 0);
  torch::manual_seed(3);
  const auto W = model.W0() + 0.3 * torch::randn({model.dim(), model.dim()}, torch::kFloat64);
  const auto pairs = model.gradient_by_pair(batch, W);
  const auto g = model.gradient(batch, W);
  const double scale = g.abs().max().item<double>();
  EXPECT_LT((pairs.expansion + g).abs().max().item<double>(), 1e-12 + 1e-9 * scale);
  auto w = W.clone().set_requires_grad(true);
  (model.logits(batch, w).gather(1, batch.y.unsqueeze(1)).sum() / 24.0).backward();
  const auto correct = w.grad();
  EXPECT_GT(correct.abs().max().item<double>(), 1e-6);
  EXPECT_LT((pairs.t_star + pairs.other_pairs - correct).abs().max().item<double>(),
            1e-12 + 1e-9 * correct.abs().max().item<double>());
}

// gradient_by_pair sums each class of pairs without the [B, T, T] table; the table (Appendix C's sum as
// written) gives the same five terms, at W_0 and away from it.
TEST(Theory, GradientByPairIsThePairTablesSum) {
  const Model model(tiny());
  const auto batch = model.sample(40, 11, 0);
  torch::manual_seed(5);
  for (const auto& W : {model.W0(), model.W0() + 0.3 * torch::randn({model.dim(), model.dim()}, torch::kFloat64)}) {
    const auto fast = model.gradient_by_pair(batch, W), table = model.gradient_by_pair_table(batch, W);
    const std::vector<std::pair<const char*, std::pair<torch::Tensor, torch::Tensor>>> terms = {
        {"expansion", {fast.expansion, table.expansion}},
        {"t_star", {fast.t_star, table.t_star}},
        {"t_star_twice", {fast.t_star_twice, table.t_star_twice}},
        {"constructive", {fast.constructive, table.constructive}},
        {"other_pairs", {fast.other_pairs, table.other_pairs}}};
    for (const auto& [name, pair] : terms) {
      const double scale = pair.second.abs().max().item<double>();
      EXPECT_GT(scale, 0.0) << name;
      EXPECT_LT((pair.first - pair.second).abs().max().item<double>(), 1e-12 * scale) << name;
    }
  }
}

// With one assignment the only number tokens are t*'s constant and m (PAD and the variable have no Φ2
// part), so the pairs with t* are exactly (t*, t*) and the constructive (t*, m), (m, t*).
TEST(Theory, PairsWithTStarAreTheTwoNamedTermsWhenOneConstantIsAssigned) {
  Sizes s = tiny();
  s.k_max = 1;
  const Model model(s);
  const auto batch = model.sample(24, 9, 0);
  const auto pairs = model.gradient_by_pair(batch, model.W0());
  const auto rest = pairs.t_star - pairs.t_star_twice - pairs.constructive;
  EXPECT_GT(pairs.constructive.abs().max().item<double>(), 0.0);
  EXPECT_LT(rest.abs().max().item<double>(), 1e-15 + 1e-12 * pairs.t_star.abs().max().item<double>());
}

// The control of T1d/T1e: the same sequences, each label moved by a nonzero offset, every offset drawn.
TEST(Theory, UnlinkedLabelsKeepTheSequencesAndMoveEveryLabel) {
  Sizes s = tiny();
  const auto linked = Model(s).sample(4000, 5, 0);
  s.unlinked = true;
  const auto unlinked = Model(s).sample(4000, 5, 0);
  EXPECT_TRUE(unlinked.ids.equal(linked.ids));
  EXPECT_TRUE(unlinked.target.equal(linked.target));
  const auto offset = (unlinked.y - linked.y).remainder(s.N);
  EXPECT_EQ((offset == 0).sum().item<int64_t>(), 0);
  for (int d = 1; d < s.N; ++d) EXPECT_NEAR((offset == d).sum().item<double>() / 4000, 0.25, 0.03) << d;
}
