// `sweep run --ensemble K`: a sweep's points trained K at a time as one stacked model are the
// points that one process per point trains (up to summation order: see the bound below), in ordinary point
// folders that `plan`, `collect` and a resumed run read as any other.
#include <gtest/gtest.h>

#include <fstream>

#include "catalogue/runs.h"
#include "model/transformer.h"
#include "sweep/ensemble.h"
#include "sweep/point_files.h"
#include "test_helpers.h"
#include "train_helpers.h"
#include "train/checkpoint.h"
#include "util/error.h"

using namespace cc;
using cc::test::fresh_dir;

namespace {

const std::string kRuns =
    "runs:\n"
    "  tiny:\n"
    "    seeds: [0]\n"
    "    config:\n"
    "      task: {modulus: 23, weight_1var: 0, ratio_2var_to_0var: 0}\n"
    "      model: {d_model: 128, d_head: 128, n_heads: 1, d_mlp: 512, activation: relu, output_vocab: full, init_std: "
    "-1}\n"
    "      train: {steps: 30, batch_size: 64, eval_every: 10, eval_size: 100, resume_every: 10, lr: 1.0e-3, "
    "weight_decay: 2.0e-2, beta1: 0.9, beta2: 0.999, eps: 1.0e-8}\n"
    "sweeps:\n"
    "  grid:\n"
    "    base: tiny\n"
    "    seeds: [0, 1]\n"
    "    axes:\n"
    "      task.pair_fraction: [0.3, 0.6]\n"
    "    final_eval: {size: 200}\n"
    "  batches:\n"  // another training config per point: one stacked model each
    "    base: tiny\n"
    "    seeds: [0]\n"
    "    axes:\n"
    "      train.batch_size: [32, 64]\n"
    "  on_blas:\n"
    "    base: tiny\n"
    "    seeds: [0, 1]\n"
    "    set: {train.engine: blas}\n"
    "    axes:\n"
    "      task.pair_fraction: [0.3]\n";

struct Fixture {
  catalogue::Runs runs;
  sweep::SweepOptions opts;
  const catalogue::SweepSpec& sweep(const std::string& name) const { return *runs.find_sweep(name); }
  sweep::PointGroup all(const std::string& name) const {
    sweep::PointGroup g;
    for (const auto& p : sweep(name).points) g.push_back(&p);
    return g;
  }
};

Fixture load(const std::string& cache) {
  const std::string path = fresh_dir("runs") + "/runs.yaml";
  std::ofstream(path) << kRuns;
  Fixture f{catalogue::Runs::load(path), {}};
  f.opts.cache_dir = cache;
  f.opts.runs_path = path;
  return f;
}

}  // namespace

TEST(SweepEnsemble, GroupsShareModelTrainingAndResumeStep) {
  const auto f = load(fresh_dir("cache"));
  EXPECT_EQ(sweep::ensemble_groups(f.opts, f.sweep("grid"), f.all("grid"), 4).size(), 1u);
  const auto by3 = sweep::ensemble_groups(f.opts, f.sweep("grid"), f.all("grid"), 3);
  ASSERT_EQ(by3.size(), 2u);
  EXPECT_EQ(by3[0].size(), 3u);
  EXPECT_EQ(by3[1][0]->index, 3u);  // plan order
  EXPECT_EQ(sweep::ensemble_groups(f.opts, f.sweep("batches"), f.all("batches"), 4).size(), 2u);
}

TEST(SweepEnsemble, StackedPointsEqualSeparatePointsAndResume) {
  auto f = load(fresh_dir("stacked"));
  const auto& s = f.sweep("grid");
  const auto group = f.all("grid");
  f.opts.stop_after = 20;  // interrupted, then resumed as one stacked model again
  for (auto o : sweep::run_ensemble(f.opts, s, group, "test")) EXPECT_EQ(o, sweep::PointOutcome::Stopped);
  f.opts.stop_after = -1;
  const auto resumed = sweep::ensemble_groups(f.opts, s, group, 4);
  ASSERT_EQ(resumed.size(), 1u);
  for (auto o : sweep::run_ensemble(f.opts, s, resumed[0], "test")) EXPECT_EQ(o, sweep::PointOutcome::Trained);

  auto separate = f.opts;
  separate.cache_dir = fresh_dir("separate");
  for (const auto* p : group) {
    EXPECT_EQ(sweep::point_state(f.opts, s, *p).kind, sweep::PointState::Done);
    ASSERT_EQ(sweep::run_point(separate, s, *p), sweep::PointOutcome::Trained);
    const auto a = train::load_checkpoint(train::checkpoint_path(sweep::point_dir(f.opts, s, *p), 30));
    const auto b = train::load_checkpoint(train::checkpoint_path(sweep::point_dir(separate, s, *p), 30));
    const auto init = train::load_checkpoint(train::checkpoint_path(sweep::point_dir(separate, s, *p), 0));
    EXPECT_EQ(
        model::max_abs_diff(*init.model,
                            *train::load_checkpoint(train::checkpoint_path(sweep::point_dir(f.opts, s, *p), 0)).model),
        0.0)
        << p->label();  // the same initialisation, bit for bit
    // Up to summation order (train_helpers.h: relative_distance); resuming is checked exactly below,
    // against the stacked run trained without a stop.
    EXPECT_LT(cc::test::relative_distance(*a.model, *b.model, *init.model), cc::test::kStackedVsSeparate) << p->label();
    EXPECT_EQ(a.sidecar["ensemble"]["members"], 4);
    EXPECT_EQ(a.sidecar["command"], "test");
    EXPECT_FALSE(b.sidecar.contains("ensemble"));
  }
  // Resuming is exact: the stacked run stopped at step 20 and resumed equals, bit for bit, the same
  // stacked run trained without a stop (the same kernels in one process, whatever the CPU).
  auto once = f.opts;
  once.cache_dir = fresh_dir("stacked_once");
  for (auto o : sweep::run_ensemble(once, s, group, "test")) EXPECT_EQ(o, sweep::PointOutcome::Trained);
  for (const auto* p : group) {
    const auto a = train::load_checkpoint(train::checkpoint_path(sweep::point_dir(f.opts, s, *p), 30));
    const auto c = train::load_checkpoint(train::checkpoint_path(sweep::point_dir(once, s, *p), 30));
    EXPECT_EQ(model::max_abs_diff(*a.model, *c.model), 0.0) << p->label();
  }
  // Done points are skipped.
  for (auto o : sweep::run_ensemble(f.opts, s, group, "test")) EXPECT_EQ(o, sweep::PointOutcome::AlreadyDone);
}

TEST(SweepEnsemble, LockedPointsAreLeftToTheirOwnerAndBlasIsRefused) {
  const auto f = load(fresh_dir("locked"));
  const auto& s = f.sweep("grid");
  auto group = f.all("grid");
  group.resize(2);
  auto o = f.opts;
  o.stop_after = 10;
  sweep::PointLock other(sweep::point_dir(o, s, *group[0]));  // another process's point
  ASSERT_TRUE(other.held());
  const auto out = sweep::run_ensemble(o, s, group, "test");
  EXPECT_EQ(out[0], sweep::PointOutcome::Busy);
  EXPECT_EQ(out[1], sweep::PointOutcome::Stopped);
  EXPECT_THROW(sweep::run_ensemble(o, f.sweep("on_blas"), f.all("on_blas"), "test"), Error);
}

// What `sweep run` checks before it exits: a point another process holds is busy (exit 75), one that
// is neither done nor held was left unfinished by a process that stopped first (exit 1, it used to be
// 0), and with --stop-after a point stopped early counts as finished.
TEST(SweepEnsemble, LeftBehindNamesBusyAndUnfinishedPoints) {
  auto f = load(fresh_dir("left"));
  const auto& s = f.sweep("grid");
  auto group = f.all("grid");
  group.resize(3);
  auto stopped = f.opts;
  stopped.stop_after = 10;
  ASSERT_EQ(sweep::run_point(stopped, s, *group[0]), sweep::PointOutcome::Stopped);  // partial at step 10
  sweep::PointLock other(sweep::point_dir(f.opts, s, *group[1]));                    // another process's point
  ASSERT_TRUE(other.held());
  const auto left = sweep::left_behind(f.opts, s, group);
  EXPECT_EQ(left.busy, std::vector<size_t>{1});
  ASSERT_EQ(left.unfinished.size(), 2u);
  EXPECT_EQ(left.unfinished[0], "0 (partial at step 10)");
  EXPECT_EQ(left.unfinished[1].rfind("2 (", 0), 0u) << left.unfinished[1];
  EXPECT_TRUE(sweep::left_behind(stopped, s, group).unfinished.empty());
}
