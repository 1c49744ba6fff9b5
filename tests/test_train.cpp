// Training: determinism, exact resume, and that learning happens at all.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>

#include "model/blas_bridge.h"
#include "train/checkpoint.h"
#include "train/metrics_log.h"
#include "train/runtime.h"
#include "train/trainer.h"
#include "test_helpers.h"
#include "train_helpers.h"
#include "resume_helpers.h"
#include "papers/assign_and_add/module/task_family.h"

using namespace cc;
namespace task = cc::assign_and_add::task;  // the paper module whose runs these tests train
namespace fs = std::filesystem;

using cc::test::fresh_dir;
using cc::test::resume_difference;
using cc::test::tiny_run;

namespace {

void expect_same_weights(const model::Transformer& a, const model::Transformer& b) {
  for (const auto& [name, t] : a.named_parameters()) EXPECT_TRUE(torch::equal(t, b.param(name))) << name;
}

struct Threads : ::testing::Environment {
  void SetUp() override { train::apply_threads(train::default_threads()); }
};
const auto* const kThreads = ::testing::AddGlobalTestEnvironment(new Threads);

}  // namespace

TEST(Train, SameSeedGivesBitwiseIdenticalWeights) {
  auto o = train::TrainOptions::silent();
  train::Trainer a(tiny_run(25), o), b(tiny_run(25), o);
  a.run();
  b.run();
  expect_same_weights(a.model(), b.model());
  auto other = tiny_run(25);
  other.seed = 1;
  train::Trainer c(other, o);
  c.run();
  EXPECT_FALSE(torch::equal(a.model().W_E(), c.model().W_E()));
}

TEST(Train, ResumeEqualsUninterrupted) {
  train::TrainOptions o;
  o.progress = false;
  const std::string dir_a = fresh_dir("resume_a");
  o.out_dir = dir_a;
  train::Trainer full(tiny_run(30), o);
  full.run();

  o.out_dir = fresh_dir("resume_b");
  o.stop_after = 20;
  {
    train::Trainer first(tiny_run(30), o);
    EXPECT_EQ(first.run(), 20);
  }
  o.stop_after = -1;
  train::Trainer second(tiny_run(30), o);
  EXPECT_EQ(second.start_step(), 20);
  second.run();
  expect_same_weights(full.model(), second.model());
  // The metrics log of the resumed run has each step once, like the uninterrupted one.
  auto la = train::MetricsLog::read(dir_a + "/metrics.jsonl");
  auto lb = train::MetricsLog::read(o.out_dir + "/metrics.jsonl");
  ASSERT_EQ(la.size(), 4u);  // steps 0, 10, 20, 30
  ASSERT_EQ(la.size(), lb.size());
  for (size_t i = 0; i < la.size(); ++i) {
    EXPECT_EQ(la[i]["acc"], lb[i]["acc"]) << "step " << la[i]["step"];
    // The record at the resume step (20) keeps the training loss of steps 10-19: it was logged
    // before the interruption, and the resumed process, which has not seen those steps, keeps it.
    EXPECT_EQ(la[i].value("train_loss", -1.0), lb[i].value("train_loss", -1.0)) << "step " << la[i]["step"];
  }
  EXPECT_TRUE(lb[2].contains("train_loss"));
  // Step 0, the final step and no stale optimizer states are kept.
  EXPECT_EQ(train::list_checkpoints(o.out_dir), (std::vector<int64_t>{0, 30}));
}

TEST(Train, RefusesToMixRunsInOneDirectory) {
  train::TrainOptions o;
  o.progress = false;
  o.out_dir = fresh_dir("mix");
  train::Trainer(tiny_run(10), o).run();
  auto other = tiny_run(10);
  other.train.lr = 0.01;
  EXPECT_THROW(train::Trainer(other, o), Error);
}

TEST(Train, ThreeHundredStepsLiftZeroVarAccuracyWellAboveChance) {
  // 0-var only, so the test measures learning of modular addition, the paper's first phase.
  auto cfg = tiny_run(300);
  task::TaskConfig zero_var_only = assign_and_add::task_config(cfg);
  zero_var_only.weight_1var = 0;
  zero_var_only.ratio_2var_to_0var = 0;
  assign_and_add::set_task(cfg, zero_var_only);
  cfg.train.batch_size = 256;
  cfg.train.eval_every = 300;
  cfg.train.eval_size = 1000;
  train::TrainOptions o;
  o.progress = false;
  train::Trainer t(cfg, o);
  t.run();
  double acc = -1;
  for (const auto& r : t.last_eval())
    if (r.name == "train") acc = r.accuracy();
  EXPECT_GT(acc, 5.0 / 59) << "chance is 1/59";
}

// The blas engine trains the same model as libtorch autograd, to float rounding, not bitwise. Two
// float orders of one computation part ways over training (AdamW's m / sqrt(v) turns rounding-level
// differences in tiny gradients into lr-sized steps, and the dynamics amplify them), so the check
// is against libtorch's own sensitivity: the same run with its initial weights moved by one ulp.
// Measured (tiny_run, 200 steps): the two engines agree to ~1e-5 in the weights and ~1e-6 in the
// loss for the first ~100 steps, then drift apart no faster than the one-ulp libtorch twin does.
TEST(Trainer, BlasEngineFollowsTheLibtorchTrajectory) {
  if (!model::blas_engine_built()) GTEST_SKIP() << "the blas engine is not built (no CBLAS)";
  auto cfg = tiny_run(200);
  auto o = train::TrainOptions::silent();
  train::Trainer ref(cfg, o), twin(cfg, o);
  {
    torch::NoGradGuard no_grad;  // one ulp (2^-23 relative) on every initial weight of the twin
    for (const auto& [name, p] : twin.model().named_parameters())
      const_cast<torch::Tensor&>(p).mul_(1.0 + 1.0 / (1 << 23));
  }
  auto fast_cfg = cfg;
  fast_cfg.train.engine = "blas";
  train::Trainer fast(fast_cfg, o);
  double early_loss = 0.0, early_w = 0.0;
  for (int64_t step = 0; step < 200; ++step) {
    const double a = ref.train_step(step).item<double>(), b = fast.train_step(step).item<double>();
    twin.train_step(step);
    if (step < 50) early_loss = std::max(early_loss, std::abs(a - b));
    if (step == 49) early_w = model::max_abs_diff(ref.model(), fast.model());
  }
  const double blas_w = model::max_abs_diff(ref.model(), fast.model()),
               twin_w = model::max_abs_diff(ref.model(), twin.model());
  std::printf(
      "blas vs libtorch: first 50 steps max |loss diff| %.3g, |weight diff| at 50 %.3g; at 200: %.3g "
      "(libtorch vs its one-ulp twin: %.3g)\n",
      early_loss, early_w, blas_w, twin_w);
  EXPECT_LT(early_loss, 1e-5);
  EXPECT_LT(early_w, 1e-4);
  EXPECT_GT(blas_w, 0.0);  // if this were 0 the engine was not used
  EXPECT_LT(blas_w, std::max(4 * twin_w, 1e-4));
}

TEST(Trainer, BlasEngineResumesExactlyAndIsPartOfTheHash) {
  if (!model::blas_engine_built()) GTEST_SKIP() << "the blas engine is not built (no CBLAS)";
  auto cfg = tiny_run(30);
  cfg.train.engine = "blas";
  EXPECT_NE(cfg.weights_hash(), tiny_run(30).weights_hash());
  EXPECT_FALSE(tiny_run(30).to_json()["train"].contains("engine"));  // old runs keep their hash
  const std::string dir_a = cc::test::fresh_dir("blas_resume_a"), dir_b = cc::test::fresh_dir("blas_resume_b");
  std::filesystem::remove_all(dir_a);
  std::filesystem::remove_all(dir_b);
  EXPECT_EQ(resume_difference(cfg, dir_a, dir_b, 20), 0.0);
}

// TransformerLens's warmup (lr × min(1, s / warmup_steps), so step 0 changes nothing) and global
// gradient clipping: in the hash only when set, the same on both engines, and resumed exactly.
TEST(Trainer, WarmupAndClippingAreTransformerLensTrainerKnobs) {
  auto plain = tiny_run(40);
  auto cfg = plain;
  cfg.train.warmup_steps = 20;
  cfg.train.max_grad_norm = 0.5;
  EXPECT_FALSE(plain.to_json()["train"].contains("warmup_steps"));  // old runs keep their hash
  EXPECT_FALSE(plain.to_json()["train"].contains("max_grad_norm"));
  EXPECT_NE(cfg.weights_hash(), plain.weights_hash());
  EXPECT_EQ(cfg.train.lr_at(0), 0.0);
  EXPECT_DOUBLE_EQ(cfg.train.lr_at(5), 0.25 * cfg.train.lr);
  EXPECT_EQ(cfg.train.lr_at(20), cfg.train.lr);
  EXPECT_EQ(plain.train.lr_at(0), plain.train.lr);

  auto o = train::TrainOptions::silent();
  train::Trainer a(cfg, o), fresh(cfg, o), no_warmup(plain, o);
  a.train_step(0);  // lr 0: neither the step nor the decoupled weight decay moves a weight
  expect_same_weights(a.model(), fresh.model());
  no_warmup.train_step(0);
  EXPECT_GT(model::max_abs_diff(no_warmup.model(), fresh.model()), 0.0);
  if (model::blas_engine_built()) {
    auto blas_cfg = cfg;
    blas_cfg.train.engine = "blas";
    train::Trainer b(blas_cfg, o);
    double worst = 0.0;
    for (int64_t step = 0; step < 30; ++step) {
      const double la = step == 0 ? 0.0 : a.train_step(step).item<double>(), lb = b.train_step(step).item<double>();
      if (step > 0) worst = std::max(worst, std::abs(la - lb));
    }
    EXPECT_LT(worst, 1e-5);
    EXPECT_LT(model::max_abs_diff(a.model(), b.model()), 1e-4);
  }
  // Resumed in the middle of the warmup: bitwise the uninterrupted run (the step alone sets the rate).
  EXPECT_EQ(resume_difference(cfg, fresh_dir("warmup_whole"), fresh_dir("warmup_resumed"), 10), 0.0);
}
