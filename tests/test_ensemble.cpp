// The stacked ensemble trainer equals K separate runs (its forward within 1e-5; its training up to
// the summation order of bmm vs mm: train_helpers.h, relative_distance), for K seeds and for K sweep
// points that differ in their data.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>

#include "model/ensemble.h"
#include "train/checkpoint.h"
#include "train/ensemble_trainer.h"
#include "train/evaluate.h"
#include "train/metrics_log.h"
#include "train/trainer.h"
#include "test_helpers.h"
#include "train_helpers.h"
#include "papers/assign_and_add/module/task_family.h"

using namespace cc;
namespace task = cc::assign_and_add::task;  // the paper module whose runs these tests train
namespace fs = std::filesystem;

using cc::test::fresh_dir;
using cc::test::tiny_run;

namespace {

train::TrainOptions quiet() {
  train::TrainOptions o;
  o.progress = false;
  return o;
}

std::unique_ptr<model::Transformer> initialised(const train::RunConfig& cfg) {
  auto m = std::make_unique<model::Transformer>(cfg.model);
  m->init(cfg.seed);
  return m;
}

std::unique_ptr<model::Transformer> separate_run(const train::RunConfig& cfg) {
  auto o = train::TrainOptions::silent();
  train::Trainer t(cfg, o);
  t.run();
  auto m = std::make_unique<model::Transformer>(cfg.model);
  std::map<std::string, torch::Tensor> values;
  for (const auto& [name, p] : t.model().named_parameters()) values[name] = p.detach();
  m->load(values);
  return m;
}

}  // namespace

TEST(Ensemble, ForwardEqualsEachMembersOwnForward) {
  auto cfg = tiny_run(0, 0);
  model::Ensemble ens(cfg.model, 3);
  std::vector<model::Transformer> ms;
  for (int k = 0; k < 3; ++k) {
    ms.emplace_back(cfg.model);
    ms.back().init(100 + k);
    ens.set_member(k, ms.back());
  }
  auto tokens = torch::randint(0, cfg.model.d_vocab, {3, 40, task::kSeqLen}, torch::kLong);
  torch::NoGradGuard no_grad;
  auto stacked = ens.forward_last(tokens);  // [3, 40, V]
  for (int k = 0; k < 3; ++k)
    EXPECT_LT((stacked[k] - ms[k].forward_last(tokens[k])).abs().max().item<double>(), 1e-5) << "member " << k;
}

TEST(Ensemble, ThreeSeedsEqualThreeSeparateRuns) {
  std::vector<train::RunConfig> cfgs = {tiny_run(25, 0), tiny_run(25, 1), tiny_run(25, 2)};
  auto o = train::TrainOptions::silent();
  train::EnsembleTrainer ens(cfgs, {}, o);
  ens.run();
  for (int k = 0; k < 3; ++k) {
    EXPECT_LT(cc::test::relative_distance(*ens.member(k), *separate_run(cfgs[k]), *initialised(cfgs[k])),
              cc::test::kStackedVsSeparate)
        << "seed " << k;
  }
}

TEST(Ensemble, SweepPointsWithDifferentDataEqualSeparateRuns) {
  auto a = tiny_run(20, 0), b = tiny_run(20, 0);
  task::TaskConfig t = assign_and_add::task_config(b);
  t.pair_fraction = 0.3;       // a §4 f-sweep point
  t.ratio_2var_to_0var = 0.2;  // and an r-sweep point
  assign_and_add::set_task(b, t);
  auto o = train::TrainOptions::silent();
  train::EnsembleTrainer ens({a, b}, {}, o);
  ens.run();
  EXPECT_LT(cc::test::relative_distance(*ens.member(0), *separate_run(a), *initialised(a)),
            cc::test::kStackedVsSeparate);
  EXPECT_LT(cc::test::relative_distance(*ens.member(1), *separate_run(b), *initialised(b)),
            cc::test::kStackedVsSeparate);
}

TEST(Ensemble, MembersWriteRunDirectoriesThatResume) {
  std::vector<train::RunConfig> cfgs = {tiny_run(30, 0), tiny_run(30, 1)};
  const std::vector<std::string> full = {fresh_dir("ens_full0"), fresh_dir("ens_full1")};
  const std::vector<std::string> part = {fresh_dir("ens_part0"), fresh_dir("ens_part1")};
  train::EnsembleTrainer(cfgs, full, quiet()).run();
  auto o = quiet();
  o.stop_after = 20;
  EXPECT_EQ(train::EnsembleTrainer(cfgs, part, o).run(), 20);
  train::EnsembleTrainer resumed(cfgs, part, quiet());
  EXPECT_EQ(resumed.start_step(), 20);
  resumed.run();
  for (int k = 0; k < 2; ++k) {
    const auto a = train::load_checkpoint(train::checkpoint_path(full[k], 30));
    const auto b = train::load_checkpoint(train::checkpoint_path(part[k], 30));
    EXPECT_EQ(model::max_abs_diff(*a.model, *b.model), 0.0) << "member " << k;  // same ops: bitwise
    EXPECT_EQ(a.config.seed, cfgs[k].seed);
    EXPECT_EQ(train::MetricsLog::read(full[k] + "/metrics.jsonl").size(), 4u);
    EXPECT_EQ(train::list_checkpoints(part[k]), (std::vector<int64_t>{0, 30}));
  }
  // A member directory is an ordinary run directory: a single Trainer resumes it.
  auto so = quiet();
  so.out_dir = full[1];
  train::Trainer single(cfgs[1], so);
  EXPECT_EQ(single.start_step(), 30);
}

TEST(Ensemble, RefusesMembersWithAnotherArchitectureOrSchedule) {
  auto a = tiny_run(10, 0), b = tiny_run(10, 1);
  b.train.lr = 0.01;
  EXPECT_THROW(train::EnsembleTrainer({a, b}, {}, quiet()), Error);
  auto c = tiny_run(10, 1);
  c.model.d_mlp = 256;
  EXPECT_THROW(train::EnsembleTrainer({a, c}, {}, quiet()), Error);
}
