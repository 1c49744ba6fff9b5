// Training: determinism, exact resume, and that learning happens at all.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>

#include "train/checkpoint.h"
#include "train/metrics_log.h"
#include "train/runtime.h"
#include "train/trainer.h"
#include "test_helpers.h"
#include "train_helpers.h"

using namespace cc;
namespace fs = std::filesystem;

using cc::test::fresh_dir;
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
  train::TrainOptions o;
  o.progress = false;
  o.log_metrics = false;
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
  for (size_t i = 0; i < la.size(); ++i) EXPECT_EQ(la[i]["acc"], lb[i]["acc"]) << "step " << la[i]["step"];
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
  cfg.task.weight_1var = 0;
  cfg.task.ratio_2var_to_0var = 0;
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
