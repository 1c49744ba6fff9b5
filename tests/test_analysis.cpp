// Measurement kinds on constructed models whose answers are known exactly.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "analysis/registry.h"
#include "train/evaluate.h"
#include "train/run_config.h"
#include "train/task_data.h"
#include "papers/assign_and_add/module/task_family.h"

using namespace cc;

namespace {

train::Checkpoint constructed(const std::function<void(std::map<std::string, torch::Tensor>&)>& edit) {
  train::Checkpoint ck;
  ck.config = assign_and_add::run_config();
  ck.model = std::make_shared<model::Transformer>(ck.config.model);
  std::map<std::string, torch::Tensor> w;
  for (const auto& [name, t] : ck.model->named_parameters()) w[name] = torch::zeros_like(t);
  edit(w);
  ck.model->load(w);
  return ck;
}

analysis::Measurement run(const std::string& kind, const train::Checkpoint& ck, const std::string& yaml) {
  const auto* k = analysis::builtin_registry().find(kind);
  EXPECT_NE(k, nullptr) << kind;
  auto doc = load_yaml_string(yaml, "params.yaml");
  auto params = k->parse_params(ObjectReader(doc, ""));
  return k->measure(analysis::MeasureInput{ck, params});
}

// Layer 1 attends from every position i to i-1 with a large score: P[i] = e_i, W_Q = 30 I,
// W_K maps e_{i-1} -> e_i, so q_i . k_j = 30 [j == i-1] * sqrt(d_head) after scaling.
train::Checkpoint previous_token_model() {
  return constructed([](std::map<std::string, torch::Tensor>& w) {
    const int64_t D = 128;
    auto pos = torch::zeros({16, D});
    for (int i = 0; i < 16; ++i) pos[i][i] = 1.0;
    w["pos_embed.W_pos"] = pos;
    w["blocks.0.attn.W_Q"] = (torch::eye(D) * 30.0 * std::sqrt(128.0)).unsqueeze(0);
    auto shift = torch::zeros({D, D});
    for (int i = 1; i < 16; ++i) shift[i - 1][i] = 1.0;  // row e_{i-1} -> column i
    w["blocks.0.attn.W_K"] = shift.unsqueeze(0);
  });
}

}  // namespace

TEST(Analysis, ExactPreviousTokenHeadScoresOne) {
  auto ck = previous_token_model();
  auto m = run("attention_targets", ck, "{layer: 1, query: constants, target: previous, sets: [test_2], size: 200}");
  EXPECT_EQ(m.value, 1.0);
  EXPECT_GT(m.n, 200);
  auto mass = run("attention_mass", ck, "{layer: 1, query: constants, target: previous, sets: [test_2], size: 200}");
  EXPECT_GT(mass.value, 0.99);
  EXPECT_EQ(run("qk_previous_position", ck, "{}").value, 1.0);
}

TEST(Analysis, UniformAttentionPutsTwoSixteenthsOnTheOperands) {
  auto ck = constructed([](std::map<std::string, torch::Tensor>&) {});  // all-zero weights: uniform attention
  auto mass = run("attention_mass", ck, "{layer: 1, query: equals, target: operands, sets: [test_1], size: 100}");
  EXPECT_NEAR(mass.value, 2.0 / 16.0, 1e-6);
}

TEST(Analysis, IsolatedCircuitWithZeroUnembeddingIsAtChance) {
  auto ck = constructed([](std::map<std::string, torch::Tensor>& w) { w["embed.W_E"] = torch::randn({74, 128}); });
  auto m = run("isolated_circuit_accuracy", ck, "{}");
  EXPECT_EQ(m.n, 3481);
  EXPECT_EQ(m.successes, 59);  // argmax of all-zero logits is 0: right only when (a + b) mod 59 == 0
}

// Layer 2 copies the operand tokens into resid_mid at '=': W_V2 W_O2 = I (but for the marker
// dimension) and layer-2 attention from '=' split evenly over positions 13 and 14, so on 0-var
// sequences resid_mid = P_15 + (E_x + E_y) / 2. Numbers live in dims 0..119.
train::Checkpoint operand_copying_model(const torch::Tensor& number_embeddings) {
  return constructed([&](std::map<std::string, torch::Tensor>& w) {
    auto E = torch::zeros({74, 128});
    E.slice(0, 0, 59).slice(1, 0, 120) = number_embeddings;
    w["embed.W_E"] = E;
    auto pos = torch::zeros({16, 128});
    pos[13][127] = 1.0;
    pos[14][127] = 1.0;
    pos[15][126] = 1.0;
    w["pos_embed.W_pos"] = pos;
    auto q = torch::zeros({128, 128}), k = torch::zeros({128, 128});
    q[126][0] = 1000.0;  // '=' (position 15) queries ...
    k[127][0] = 1.0;     // ... keys at positions 13 and 14 only
    w["blocks.1.attn.W_Q"] = q.unsqueeze(0);
    w["blocks.1.attn.W_K"] = k.unsqueeze(0);
    auto v = torch::eye(128);
    v[127][127] = 0;  // do not copy the positional marker
    w["blocks.1.attn.W_V"] = v.unsqueeze(0);
    w["blocks.1.attn.W_O"] = torch::eye(128).unsqueeze(0);
  });
}

TEST(Analysis, ResidualCosineOfAnExactOvSumIsOne) {
  auto ck = operand_copying_model(torch::randn({59, 120}));
  // resid_mid also holds P_15 = e_126 (norm 1, orthogonal to the numbers, whose sum has norm
  // ~15), so the cosine is ~0.998.
  auto m = run("residual_cosine", ck, "{target: ov_sum, sets: [test_0], size: 200}");
  EXPECT_GT(m.value, 0.99);
  auto margin = run("residual_cosine_margin", ck, "{target: ov_sum, sets: [test_0], size: 200}");
  EXPECT_GT(margin.value, 0.3);
}

TEST(Analysis, ANeuronWithAnExactCosinePreactivationFitsWithRSquaredOne) {
  // E_n = (cos 2πkn/59, sin 2πkn/59, 0, ...) with k = 7; one MLP neuron reads dim 0, so its
  // preactivation is (cos 2πkn/59 + cos 2πkm/59) / 2: the paper's form exactly. The other
  // neurons read nothing (never positive: not active).
  auto E = torch::zeros({59, 120});
  for (int n = 0; n < 59; ++n) {
    E[n][0] = std::cos(2 * M_PI * 7 * n / 59);
    E[n][1] = std::sin(2 * M_PI * 7 * n / 59);
  }
  auto ck = operand_copying_model(E);
  auto w_in = torch::zeros({128, 512});
  w_in[0][0] = 1.0;
  std::map<std::string, torch::Tensor> w;
  for (const auto& [name, t] : ck.model->named_parameters()) w[name] = t.detach().clone();
  w["blocks.1.mlp.W_in"] = w_in;
  w["blocks.1.mlp.W_out"] = torch::ones({512, 128});
  ck.model->load(w);
  auto fourier = run("mlp_fourier_r2", ck, "{}");
  EXPECT_EQ(fourier.n, 1);
  EXPECT_GT(fourier.value, 1 - 1e-9);
  EXPECT_EQ(fourier.details["key_frequency_histogram"][7], 1);
  EXPECT_GT(run("mlp_additive_r2", ck, "{}").value, 1 - 1e-9);
}

namespace {

analysis::Measurement run_history(const std::string& kind, const analysis::RunHistory& h, const std::string& yaml) {
  const auto* k = analysis::builtin_registry().find(kind);
  EXPECT_NE(k, nullptr) << kind;
  auto doc = load_yaml_string(yaml, "params.yaml");
  auto params = k->parse_params(ObjectReader(doc, ""));
  train::Checkpoint ck;
  ck.config = assign_and_add::run_config();
  ck.path = "ck";
  return k->measure(analysis::MeasureInput{ck, params, &h});
}

// A metrics log: `a` rises to 1 by step 40, `b` falls to 0.5 by step 20, `c` reaches 1 at step 60.
analysis::RunHistory log_of_three() {
  analysis::RunHistory h;
  const double a[] = {0, 0.2, 0.6, 0.9, 1.0, 1.0, 1.0}, b[] = {4, 1, 0.55, 0.52, 0.5, 0.5, 0.5},
               c[] = {0, 0, 0, 0.1, 0.5, 0.8, 1.0};
  for (int i = 0; i < 7; ++i)
    h.metrics.push_back({{"step", 10 * i}, {"acc", {{"x", a[i]}}}, {"loss", {{"x", b[i]}}}, {"probe", {{"c", c[i]}}}});
  return h;
}

}  // namespace

TEST(FirstSteps, RatioOfTheStepsAtWhichTwoConditionsFirstHold) {
  const auto h = log_of_three();
  // acc.x >= 0.9 first at step 30; loss.x within 0.06 of its last value (0.5) first at step 20.
  auto m =
      run_history("first_step_ratio", h,
                  "{numerator: {metric: acc.x, at_least: 0.9}, denominator: {metric: loss.x, within_of_last: 0.06}}");
  EXPECT_DOUBLE_EQ(m.value, 1.5);
  // share_of_change: loss.x falls 4 -> 0.5; 3/3.5 = 86 % of it made at step 10, 98.6 % at step 20.
  m = run_history("first_step_ratio", h,
                  "{numerator: {metric: acc.x, at_least: 0.9}, denominator: {metric: loss.x, share_of_change: 0.8}}");
  EXPECT_DOUBLE_EQ(m.value, 3.0);
  m = run_history("first_step_ratio", h,
                  "{numerator: {metric: acc.x, at_least: 0.9}, denominator: {metric: loss.x, share_of_change: 0.9}}");
  EXPECT_DOUBLE_EQ(m.value, 1.5);
  // A condition that never holds: no ratio, 0.
  m = run_history("first_step_ratio", h,
                  "{numerator: {metric: acc.x, at_least: 2}, denominator: {metric: loss.x, at_most: 1}}");
  EXPECT_EQ(m.value, 0.0);
  EXPECT_THROW(run_history("first_step_ratio", h,
                           "{numerator: {metric: acc.y, at_least: 0.9}, denominator: {metric: loss.x, at_most: 1}}"),
               Error);
  analysis::RunHistory only_init;
  only_init.metrics = {h.metrics.front()};
  EXPECT_THROW(run_history("first_step_ratio", only_init,
                           "{numerator: {metric: acc.x, at_least: 0.9}, denominator: {metric: loss.x, at_most: 1}}"),
               analysis::NotComputable);
}

TEST(FirstSteps, OrderIsTheShareOfConsecutiveMetricsReachedStrictlyLater) {
  const auto h = log_of_three();
  EXPECT_EQ(run_history("first_step_order", h, "{metrics: [acc.x, probe.c], at_least: 0.9}").value, 1.0);
  EXPECT_EQ(run_history("first_step_order", h, "{metrics: [probe.c, acc.x], at_least: 0.9}").value, 0.0);
  // acc.x (step 30) before probe.c (60), probe.c never before acc.x: one pair of two.
  EXPECT_EQ(run_history("first_step_order", h, "{metrics: [acc.x, probe.c, acc.x], at_least: 0.9}").value, 0.5);
  // A metric that never reaches the level breaks the order it is in.
  EXPECT_EQ(run_history("first_step_order", h, "{metrics: [acc.x, probe.c], at_least: 1.5}").value, 0.0);
}

TEST(ResetAblation, ResettingEveryParameterOfATrainedModelLosesWhatItLearned) {
  // The "trained" model: the initial one with W_U replaced; resetting W_U gives back the initial model,
  // so the drop is the accuracy difference between the two, measured independently here.
  train::Checkpoint ck;
  ck.config = assign_and_add::run_config();
  ck.path = "ck";
  ck.model = std::make_shared<model::Transformer>(ck.config.model);
  ck.model->init(ck.config.seed);
  model::Transformer init(ck.config.model);
  init.init(ck.config.seed);
  torch::NoGradGuard no_grad;
  const_cast<torch::Tensor&>(ck.model->param("unembed.W_U")).mul_(-3.0);
  const std::string set = train::known_eval_set_names().front();
  auto doc = load_yaml_string("{reset: [unembed.W_U], set: " + set + ", size: 200, eval_seed: 3}", "p.yaml");
  const auto* k = analysis::builtin_registry().find("reset_accuracy_drop");
  const auto m = k->measure(analysis::MeasureInput{ck, k->parse_params(ObjectReader(doc, ""))});
  const auto sequences = train::make_task_data(ck.config)->eval_set(set, 200, 3);
  const double expected =
      train::evaluate_set(*ck.model, sequences).accuracy() - train::evaluate_set(init, sequences).accuracy();
  EXPECT_DOUBLE_EQ(m.value, expected);
  auto bad = load_yaml_string("{reset: [unembed.W_X], set: " + set + "}", "p.yaml");
  EXPECT_THROW(k->measure(analysis::MeasureInput{ck, k->parse_params(ObjectReader(bad, ""))}), Error);
}
