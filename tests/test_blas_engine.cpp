// The blas engine (model/blas_transformer.h) against the libtorch reference: the same logits, the
// same gradients (libtorch autograd), the same AdamW update, to float rounding.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstring>

#include "model/blas_bridge.h"
#include "model/transformer.h"
#include "papers/assign_and_add/module/task/eval_sets.h"
#include "papers/assign_and_add/module/task_family.h"
#include "train/run_config.h"
#include "util/error.h"

#ifdef CLAIMCHECK_BLAS_ENGINE
#include "model/blas_transformer.h"

using namespace cc;
namespace task = cc::assign_and_add::task;  // the paper module whose runs these tests train

namespace {

model::ModelConfig model_config(const std::string& activation = "relu", int heads = 1,
                                const std::string& vocab = "full") {
  model::ModelConfig m = assign_and_add::model_config();
  m.activation = activation;
  m.n_heads = heads;
  m.d_head = 128 / heads;
  m.output_vocab = vocab;
  m.derive(assign_and_add::token_space(task::TaskConfig{}));
  return m;
}

std::vector<task::Example> some_examples(int n, uint64_t seed = 5) {
  task::Sampler s{task::TaskConfig{}};
  return task::make_eval_set(s, "test_2", n, seed).examples;
}

double max_abs(const torch::Tensor& t) { return t.abs().max().item<double>(); }

struct Case {
  std::string activation;
  int heads;
  std::string vocab;
};

class BlasEngine : public ::testing::TestWithParam<Case> {};

// Logits and every parameter's gradient of the mean cross-entropy, both ways.
TEST_P(BlasEngine, LogitsAndGradientsMatchLibtorchAutograd) {
  const Case c = GetParam();
  model::Transformer ref(model_config(c.activation, c.heads, c.vocab));
  ref.init(7);
  const auto ex = some_examples(96);
  auto tokens = assign_and_add::tokens_tensor(ex), targets = assign_and_add::targets_tensor(ex);
  if (c.vocab == "numbers") targets = targets.remainder(59);  // any valid class will do

  auto logits_ref = ref.forward_last(tokens);
  auto loss_ref = torch::nn::functional::cross_entropy(logits_ref, targets);
  loss_ref.backward();

  model::BlasTransformer engine(ref.config());
  const auto w = model::flat_parameters(ref);
  auto logits = torch::empty_like(logits_ref);
  engine.forward(w.data(), tokens.data_ptr<int64_t>(), tokens.size(0), tokens.size(1), logits.data_ptr<float>());
  std::vector<float> grad(static_cast<size_t>(engine.layout().total));
  const double loss = engine.backward(w.data(), targets.data_ptr<int64_t>(), grad.data());

  EXPECT_LT(max_abs(logits - logits_ref.detach()), 1e-5 * std::max(1.0, max_abs(logits_ref.detach())));
  EXPECT_NEAR(loss, loss_ref.item<double>(), 1e-5);
  for (const auto& [name, p] : ref.named_parameters()) {
    const auto& e = engine.layout().at(name);
    auto g = torch::from_blob(grad.data() + e.offset, p.sizes(), torch::kFloat32);
    const double scale = std::max(max_abs(p.grad()), 1e-6);
    EXPECT_LT(max_abs(g - p.grad()) / scale, 1e-4) << name << ": max |grad| " << scale;
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, BlasEngine, ::testing::Values(Case{"relu", 1, "full"}, Case{"gelu", 2, "numbers"}),
                         [](const auto& info) {
                           return info.param.activation + "_" + std::to_string(info.param.heads) + "heads";
                         });

TEST(BlasEngineStep, AdamWMatchesTorchOptimAdamW) {
  torch::manual_seed(3);
  auto p = torch::randn({1000}).set_requires_grad(true);
  std::vector<float> w(p.data_ptr<float>(), p.data_ptr<float>() + 1000), m(1000, 0.f), v(1000, 0.f);
  torch::optim::AdamW opt({p}, torch::optim::AdamWOptions(1e-3).betas({0.9, 0.98}).eps(1e-8).weight_decay(2e-2));
  const model::AdamWConfig cfg{1e-3, 0.9, 0.98, 1e-8, 2e-2};
  for (int step = 1; step <= 20; ++step) {
    auto g = torch::randn({1000});
    p.mutable_grad() = g.clone();
    opt.step();
    model::adamw_step(cfg, step, 1000, w.data(), g.data_ptr<float>(), m.data(), v.data());
  }
  auto ours = torch::from_blob(w.data(), {1000}, torch::kFloat32);
  EXPECT_LT(max_abs(ours - p.detach()), 1e-6);
}

// adamw_step is built for the x86-64 baseline and for AVX2 and vectorised (blas_transformer.cpp): on
// any CPU its bits must be those of the formula applied one element at a time in IEEE float. An odd
// length leaves a scalar tail after the vector loop; a fused multiply-add anywhere would differ.
TEST(BlasEngineStep, AdamWHasTheBitsOfTheScalarFormulaAtAnyVectorWidth) {
  const int64_t n = 1003;
  const model::AdamWConfig c{1e-3, 0.9, 0.98, 1e-8, 2e-2};
  std::vector<float> w(n), g(n), m(n, 0.f), v(n, 0.f);
  for (int64_t i = 0; i < n; ++i) w[i] = std::sin(0.37f * static_cast<float>(i));
  std::vector<float> w_ref = w, m_ref = m, v_ref = v;
  for (int step = 1; step <= 5; ++step) {
    for (int64_t i = 0; i < n; ++i) g[i] = std::cos(0.11f * static_cast<float>(i * step)) * 1e-2f;
    model::adamw_step(c, step, n, w.data(), g.data(), m.data(), v.data());
    const float decay = static_cast<float>(1.0 - c.lr * c.weight_decay);
    const float step_size = static_cast<float>(c.lr / (1.0 - std::pow(c.beta1, static_cast<double>(step))));
    const float sqrt_bc2 = static_cast<float>(std::sqrt(1.0 - std::pow(c.beta2, static_cast<double>(step))));
    for (int64_t i = 0; i < n; ++i) {
      float t;  // one operation at a time, in the library's order
      w_ref[i] *= decay;
      t = static_cast<float>(c.beta1) * m_ref[i];
      m_ref[i] = t + static_cast<float>(1.0 - c.beta1) * g[i];
      t = static_cast<float>(1.0 - c.beta2) * g[i];
      t = t * g[i];
      v_ref[i] = static_cast<float>(c.beta2) * v_ref[i] + t;
      t = std::sqrt(v_ref[i]) / sqrt_bc2;
      t = t + static_cast<float>(c.eps);
      t = step_size * m_ref[i] / t;
      w_ref[i] -= t;
    }
  }
  EXPECT_EQ(0, std::memcmp(w.data(), w_ref.data(), sizeof(float) * n));
  EXPECT_EQ(0, std::memcmp(m.data(), m_ref.data(), sizeof(float) * n));
  EXPECT_EQ(0, std::memcmp(v.data(), v_ref.data(), sizeof(float) * n));
}

// Clipping the flat gradient equals torch::nn::utils::clip_grad_norm_ over the parameter tensors.
TEST(BlasEngineStep, GradientClippingMatchesClipGradNorm) {
  torch::manual_seed(4);
  std::vector<torch::Tensor> params = {torch::zeros({300}).set_requires_grad(true),
                                       torch::zeros({20, 10}).set_requires_grad(true)};
  for (double max_norm : {1e9, 1.0, 0.01}) {
    std::vector<float> flat;
    for (auto& p : params) {
      p.mutable_grad() = torch::randn(p.sizes());
      const auto g = p.grad().contiguous();
      flat.insert(flat.end(), g.data_ptr<float>(), g.data_ptr<float>() + g.numel());
    }
    const double norm = model::clip_grad_norm(max_norm, static_cast<int64_t>(flat.size()), flat.data());
    const double torch_norm = torch::nn::utils::clip_grad_norm_(params, max_norm);
    EXPECT_NEAR(norm, torch_norm, 1e-4 * torch_norm);
    auto theirs = torch::cat({params[0].grad().reshape(-1), params[1].grad().reshape(-1)});
    auto ours = torch::from_blob(flat.data(), {static_cast<int64_t>(flat.size())}, torch::kFloat32);
    EXPECT_LT(max_abs(ours - theirs), 1e-6 * std::max(1.0, max_norm)) << "max_norm " << max_norm;
    if (max_norm < norm) EXPECT_NEAR(ours.norm().item<double>(), max_norm, 1e-4 * max_norm);
  }
}

TEST(BlasEngineStep, ChunkedLogitsEqualOneForwardAndBadInputIsAnError) {
  model::Transformer ref(model_config());
  ref.init(2);
  const auto ex = some_examples(300);
  auto tokens = assign_and_add::tokens_tensor(ex);
  auto fast = model::fast_forward_last(ref, tokens);
  torch::NoGradGuard no_grad;
  EXPECT_LT(max_abs(fast - ref.forward_last(tokens)), 1e-4);

  model::BlasTransformer engine(ref.config());
  const auto w = model::flat_parameters(ref);
  std::vector<float> out(static_cast<size_t>(74));
  std::vector<int64_t> bad(16, 0);
  bad[3] = 74;  // outside the vocabulary
  EXPECT_THROW(engine.forward(w.data(), bad.data(), 1, 16, out.data()), Error);
  EXPECT_THROW(engine.forward(w.data(), bad.data(), 1, 17, out.data()), Error);  // longer than n_ctx
}

}  // namespace

#else
TEST(BlasEngine, NotBuilt) { GTEST_SKIP() << "no CBLAS found at configure time: the blas engine is not built"; }
#endif
