// The grokking paper's module (papers/nanda_grokking/module) and the engine pieces a second paper
// uses: task families in run configs, the shared Fourier fits. Synthetic data and tiny runs only:
// nothing here reads a fixture.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "analysis/fourier_fit.h"
#include "analysis/registry.h"
#include "catalogue/runs.h"
#include "papers/nanda_grokking/module/kinds.h"
#include "papers/nanda_grokking/module/modular_addition.h"
#include "tests/test_helpers.h"
#include "train/checkpoint.h"
#include "train/family.h"
#include "train/run_config.h"
#include "train/trainer.h"
#include "util/error.h"

namespace fs = std::filesystem;
using namespace cc;

namespace {

// A small run of the stated shape: p = 13, d_model 32, 2 heads, 12 steps.
const char* kTinyRuns = R"(runs:
  tiny:
    seeds: [0, 1]
    tier: cpu
    config:
      task: {family: modular_addition, modulus: 13, train_fraction: 0.5, split_seed: 3}
      model: {n_layers: 1, mlp_layers: [0], d_model: 32, n_heads: 2, d_head: 16, d_mlp: 64, activation: relu,
              output_vocab: numbers, init_std: 0.17}
      train: {batch: full, steps: 12, lr: 1.0e-2, weight_decay: 1.0, beta1: 0.9, beta2: 0.98, eps: 1.0e-8,
              warmup_steps: 3, eval_every: 4, checkpoint_every: 6, resume_every: 4}
)";

std::string write_runs(const std::string& dir) {
  const std::string path = dir + "/runs.yaml";
  std::ofstream(path) << kTinyRuns;
  return path;
}

train::RunConfig tiny_run(const std::string& dir, uint64_t seed = 0) {
  return catalogue::Runs::load(write_runs(dir)).find("tiny")->for_seed(seed);
}

// Trains `cfg` into `out` with the engine's Trainer, as `claimcheck train` does (resuming from a resume
// point there), to `stop_after` when >= 0.
void train_into(const train::RunConfig& cfg, const std::string& out, int64_t stop_after = -1) {
  train::TrainOptions opts;
  opts.out_dir = out;
  opts.progress = false;
  opts.stop_after = stop_after;
  opts.command = "test";
  train::Trainer(cfg, opts).run();
}

}  // namespace

TEST(Grokking, SplitIsAPartitionOfEveryPair) {
  nanda_grokking::TaskConfig t;  // the stated p = 113, 30 %
  const auto s = nanda_grokking::split(t);
  EXPECT_EQ(s.train.numel(), 3830);  // floor(0.3 * 12769), as the authors' code
  EXPECT_EQ(s.train.numel() + s.test.numel(), 113 * 113);
  auto all = std::get<0>(torch::cat({s.train, s.test}).sort());
  EXPECT_TRUE(all.equal(torch::arange(113 * 113, torch::kLong)));
  const auto grid = nanda_grokking::all_pairs(t);
  EXPECT_EQ(grid.tokens[113 * 5 + 7][0].item<int64_t>(), 5);
  EXPECT_EQ(grid.tokens[113 * 5 + 7][2].item<int64_t>(), 113);  // '='
  EXPECT_EQ(grid.targets[113 * 100 + 20].item<int64_t>(), 7);   // (100 + 20) mod 113
  t.split_seed = 1;
  EXPECT_FALSE(nanda_grokking::split(t).train.equal(s.train));
}

TEST(Grokking, FamilyRunsRoundTripThroughTheEngine) {
  const auto dir = cc::test::fresh_dir("family");
  const auto runs = catalogue::Runs::load(write_runs(dir));
  const auto cfg = runs.find("tiny")->for_seed(1);
  EXPECT_EQ(cfg.family, "modular_addition");
  EXPECT_EQ(cfg.model.n_ctx, 3);
  EXPECT_EQ(cfg.model.d_vocab, 14);
  EXPECT_EQ(cfg.model.d_vocab_out, 13);
  EXPECT_EQ(cfg.train.steps, 12);
  // A sidecar's config reads back to the same run, and the hash ignores the logging cadence only.
  const auto back = train::RunConfig::from_json(cfg.to_json());
  EXPECT_EQ(back.weights_hash(), cfg.weights_hash());
  auto j = cfg.to_json();
  j["train"]["eval_every"] = 2;
  EXPECT_EQ(train::RunConfig::from_json(j).weights_hash(), cfg.weights_hash());
  j["train"]["weight_decay"] = 0.5;
  EXPECT_NE(train::RunConfig::from_json(j).weights_hash(), cfg.weights_hash());
  j["task"]["family"] = "no_such_family";
  EXPECT_THROW(train::RunConfig::from_json(j), Error);
  fs::remove_all(dir);
}

// The engine's Trainer trains this paper's runs on what its family supplies: the whole training split
// each step, the loss in float64, Σ w² beside the engine's accuracies and losses in the metrics log.
TEST(Grokking, TheEngineTrainerTrainsTheFamilysRuns) {
  const auto dir = cc::test::fresh_dir("engine");
  const auto cfg = tiny_run(dir);
  EXPECT_EQ(cfg.train.loss_precision, "float64");
  EXPECT_EQ(cfg.train.warmup_steps, 3);
  train::Trainer silent(cfg, train::TrainOptions::silent());
  EXPECT_EQ(silent.train_step(0).scalar_type(), torch::kDouble);
  train_into(cfg, dir + "/run");
  std::ifstream log(dir + "/run/metrics.jsonl");
  std::vector<nlohmann::json> records;
  for (std::string line; std::getline(log, line);) records.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(records.size(), 4u);  // steps 0, 4, 8, 12
  for (const auto& rec : records) {
    EXPECT_EQ(rec["n"]["train"], 84);  // every training pair, every held-out pair
    EXPECT_EQ(rec["n"]["test"], 13 * 13 - 84);
    EXPECT_GT(rec["sum_squared_weights"].get<double>(), 0.0);
  }
  // The sidecar keeps this paper's format of the run ({task, model, train: {batch: full, ...}}).
  const auto ck = train::load_checkpoint(train::checkpoint_path(dir + "/run", 12));
  EXPECT_EQ(ck.sidecar["config"]["train"]["batch"], "full");
  EXPECT_FALSE(ck.sidecar["config"]["train"].contains("batch_size"));
  EXPECT_EQ(ck.config.weights_hash(), cfg.weights_hash());
  // The log feeds the kinds that read it: Σ w² at the end over its peak is in (0, 1].
  analysis::RunHistory history;
  history.metrics = records;
  const auto& ratio = *analysis::builtin_registry().find("weight_norm_ratio");
  analysis::MeasureInput in{ck, nlohmann::json{{"mode", "weight_norm"}}};
  in.history = &history;
  const auto m = ratio.measure(in);
  EXPECT_GT(m.value, 0.0);
  EXPECT_LE(m.value, 1.0);
  fs::remove_all(dir);
}

// The committed fixtures' logs were written by this module's trainer before the engine's served
// every paper: their records read as the engine's, value for value; a record lacking a field is refused.
TEST(Grokking, MetricsLogReadsTheCommittedFormatAsTheEngines) {
  analysis::RunHistory legacy, engine;
  legacy.metrics = {{{"step", 100},
                     {"train_accuracy", 0.5},
                     {"test_accuracy", 0.25},
                     {"train_loss", 2.0},
                     {"test_loss", 7.0},
                     {"sum_squared_weights", 9.0}}};
  engine.metrics = {{{"step", 100},
                     {"wall_s", 1.0},
                     {"acc", {{"train", 0.5}, {"test", 0.25}}},
                     {"loss", {{"train", 2.0}, {"test", 7.0}}},
                     {"n", {{"train", 84}, {"test", 85}}},
                     {"sum_squared_weights", 9.0}}};
  const std::vector<std::string> all = {"/step",       "/acc/train", "/acc/test",
                                        "/loss/train", "/loss/test", "/sum_squared_weights"};
  const auto a = nanda_grokking::metrics_log(legacy, all), b = nanda_grokking::metrics_log(engine, all);
  for (const auto& at : all) EXPECT_EQ(a[0][nlohmann::json::json_pointer(at)], b[0][nlohmann::json::json_pointer(at)]);
  EXPECT_EQ(nanda_grokking::drop_step(legacy, 0.2), 100);
  EXPECT_EQ(nanda_grokking::drop_step(engine, 0.3), -1);
  engine.metrics[0].erase("sum_squared_weights");
  EXPECT_THROW(nanda_grokking::metrics_log(engine, all), Error);
}

TEST(Grokking, ResumedRunEqualsUninterruptedRunBitwise) {
  const auto dir = cc::test::fresh_dir("resume");
  const auto cfg = tiny_run(dir);
  train_into(cfg, dir + "/whole");
  train_into(cfg, dir + "/split", 5);  // leaves a resume point at step 5
  train_into(cfg, dir + "/split");
  for (int64_t step : {0, 6, 12}) {
    const auto a = train::load_checkpoint(train::checkpoint_path(dir + "/whole", step));
    const auto b = train::load_checkpoint(train::checkpoint_path(dir + "/split", step));
    EXPECT_EQ(model::max_abs_diff(*a.model, *b.model), 0.0) << "step " << step;
    EXPECT_EQ(a.config.weights_hash(), b.config.weights_hash());
  }
  // Another run's folder is refused, not mixed.
  auto other = cfg;
  other.train.weight_decay = 0.0;
  EXPECT_THROW(train_into(other, dir + "/whole"), Error);
  fs::remove_all(dir);
}

TEST(Grokking, KindsMeasureTheirOwnModelsAndRefuseOthers) {
  const auto dir = cc::test::fresh_dir("kinds");
  const auto cfg = tiny_run(dir);
  train_into(cfg, dir, 0);
  const auto ck = train::load_checkpoint(train::checkpoint_path(dir, 0));
  const auto& reg = analysis::builtin_registry();
  // The engine's `accuracy` on the family's sets: every held-out pair, every training pair.
  const nlohmann::json test = {{"set", "test"}, {"size", 10}, {"eval_seed", 1}};
  const auto m = reg.find("accuracy")->measure({ck, test});
  EXPECT_EQ(m.n, 13 * 13 - 84);  // floor(0.5 * 169) = 84 training pairs; the size asked for does not apply
  EXPECT_LT(m.value, 0.3);       // untrained
  const nlohmann::json train_set = {{"set", "train"}, {"size", 10}, {"eval_seed", 1}};
  EXPECT_EQ(reg.find("accuracy")->measure({ck, train_set}).n, 84);
  // A set of another family's task is refused by name.
  const nlohmann::json other_set = {{"set", "test_0"}, {"size", 10}, {"eval_seed", 1}};
  EXPECT_THROW(reg.find("accuracy")->measure({ck, other_set}), Error);
  const nlohmann::json top = {{"top", 6}};
  const auto e = reg.find("embedding_fourier_share")->measure({ck, top});
  EXPECT_EQ(e.n, 6);               // (13 - 1) / 2 frequencies
  EXPECT_DOUBLE_EQ(e.value, 1.0);  // all six
  // A checkpoint of another family's task is refused by name, not measured as if it were this paper's.
  train::Checkpoint other = ck;
  other.config = train::RunConfig{};
  EXPECT_THROW(reg.find("embedding_fourier_share")->measure({other, top}), Error);
  fs::remove_all(dir);
}

// progress_order (N9) judges the last grid checkpoint before test accuracy reaches the level, with the
// subject's key frequencies; with no drop, the subject itself. The metrics here are written by hand.
TEST(Grokking, ProgressOrderJudgesTheLastGridCheckpointBeforeTheDrop) {
  const auto dir = cc::test::fresh_dir("progress");
  const auto cfg = tiny_run(dir);
  train_into(cfg, dir);  // checkpoints at 0, 6, 12
  const auto last = train::load_checkpoint(train::checkpoint_path(dir, 12));
  analysis::RunHistory history;
  history.checkpoint_steps = {0, 6, 12};
  history.checkpoint_at = [&](int64_t step) {
    return std::make_shared<const train::Checkpoint>(train::load_checkpoint(train::checkpoint_path(dir, step)));
  };
  const auto& kind = *analysis::builtin_registry().find("progress_order");
  const nlohmann::json params = {{"level", 0.5}, {"every", 6}, {"min_share", 0.05}};
  auto with_accuracies = [&](std::vector<double> acc) {
    history.metrics.clear();
    for (size_t i = 0; i < acc.size(); ++i) history.metrics.push_back({{"step", 4 * i}, {"test_accuracy", acc[i]}});
    analysis::MeasureInput in{last, params};
    in.history = &history;
    return kind.measure(in);
  };
  const auto m = with_accuracies({0.1, 0.2, 0.6, 0.9});  // reaches 0.5 at step 8: judged at 6
  EXPECT_EQ(m.details["drop_step"], 8);
  EXPECT_EQ(m.details["judged_step"], 6);
  nlohmann::json details;
  const auto keys = nanda_grokking::key_frequencies(last, nullptr, 0.05, details);
  const auto at6 = nanda_grokking::key_frequency_losses(train::load_checkpoint(train::checkpoint_path(dir, 6)), nullptr,
                                                        keys, false);
  EXPECT_DOUBLE_EQ(m.value, at6.restricted / at6.full);
  const auto never = with_accuracies({0.1, 0.2, 0.3, 0.4});  // no drop: the subject, step 12
  EXPECT_EQ(never.details["drop_step"], -1);
  EXPECT_EQ(never.details["judged_step"], 12);
  // N9's reading since 2026-12-04: the same restricted loss over chance's, ln p.
  const nlohmann::json chance = {{"level", 0.5}, {"every", 6}, {"min_share", 0.05}, {"against", "chance"}};
  history.metrics = {{{"step", 0}, {"test_accuracy", 0.1}}, {{"step", 8}, {"test_accuracy", 0.6}}};
  analysis::MeasureInput in{last, chance};
  in.history = &history;
  EXPECT_DOUBLE_EQ(kind.measure(in).value, at6.restricted / std::log(13.0));
  fs::remove_all(dir);
}

// The kinds of readings 10-17 (assumptions.md) on a tiny run: each gives a value in its range, and the
// kinds that read the training history refuse one that ends at step 0 (NotComputable: the untrained
// model is no control of theirs) rather than return a constant.
TEST(Grokking, ReadingsOfTheControlsIssueMeasureAndRefuseAStepZeroHistory) {
  const auto dir = cc::test::fresh_dir("readings");
  const auto cfg = tiny_run(dir);
  train_into(cfg, dir);  // checkpoints at 0, 6, 12
  const auto last = train::load_checkpoint(train::checkpoint_path(dir, 12));
  const auto& reg = analysis::builtin_registry();
  auto parsed = [](const analysis::MeasurementKind& k, const std::string& yaml) {
    const YamlDoc doc = load_yaml_string(yaml, "params.yaml");
    return k.parse_params(ObjectReader(doc, ""));
  };
  for (const char* name : {"neuron_key_frequency_share", "neuron_fit_accuracy", "logit_cos_fve", "wl_residual_share",
                           "excluded_accuracy_drop"}) {
    const auto& k = *reg.find(name);
    const auto params = parsed(k, "{}");
    const auto m = k.measure({last, params});
    EXPECT_GE(m.value, -1.0) << name;
    EXPECT_LE(m.value, 1.0) << name;
    EXPECT_GT(m.n, 0) << name;
  }
  // neuron_fit_accuracy: the accuracy of the logits with every active neuron replaced by its fit is
  // a share of the 84 training pairs, and the full model's own accuracy is reported beside it.
  const auto& fit = *reg.find("neuron_fit_accuracy");
  const auto f = fit.measure({last, parsed(fit, "{}")});
  EXPECT_EQ(f.n, 84);
  EXPECT_TRUE(f.details.contains("full_accuracy"));
  // History kinds: a log that ends at step 0 cannot be read for phases.
  analysis::RunHistory history;
  history.checkpoint_steps = {0, 6, 12};
  history.checkpoint_at = [&](int64_t step) {
    return std::make_shared<const train::Checkpoint>(train::load_checkpoint(train::checkpoint_path(dir, step)));
  };
  history.metrics = {{{"step", 0}, {"test_accuracy", 0.1}, {"train_accuracy", 0.1}, {"sum_squared_weights", 5.0}}};
  for (const char* name : {"fourier_gini_rise", "norm_peak_timing", "memorisation_ratio", "weight_norm_ratio"}) {
    const auto& k = *reg.find(name);
    analysis::MeasureInput in{last, parsed(k, name == std::string("fourier_gini_rise") ? "{every: 6}" : "{}")};
    in.history = &history;
    EXPECT_THROW(k.measure(in), analysis::NotComputable) << name;
  }
  // With a history: the Gini rise is the end's minus the judged checkpoint's; no drop, no rise.
  history.metrics = {{{"step", 0}, {"test_accuracy", 0.1}, {"train_accuracy", 0.1}, {"sum_squared_weights", 5.0}},
                     {{"step", 4}, {"test_accuracy", 0.2}, {"train_accuracy", 0.9}, {"sum_squared_weights", 9.0}},
                     {{"step", 8}, {"test_accuracy", 0.6}, {"train_accuracy", 1.0}, {"sum_squared_weights", 7.0}}};
  const auto& gini = *reg.find("fourier_gini_rise");
  analysis::MeasureInput in{last, parsed(gini, "{matrix: W_L, every: 6}")};
  in.history = &history;
  const auto g = gini.measure(in);
  EXPECT_EQ(g.details["judged_step"], 6);
  EXPECT_DOUBLE_EQ(g.value, g.details["unthresholded"]["Gini at the end"].get<double>() -
                                g.details["unthresholded"]["Gini before the drop"].get<double>());
  const auto& peak = *reg.find("norm_peak_timing");
  analysis::MeasureInput pin{last, parsed(peak, "{}")};
  pin.history = &history;
  EXPECT_DOUBLE_EQ(peak.measure(pin).value, 4.0 / 8.0);  // the norm peaks at 4, test accuracy reaches 0.5 at 8
  history.metrics.pop_back();                            // never reaches 0.5: judged at the subject, no rise
  EXPECT_DOUBLE_EQ(gini.measure(in).value, 0.0);
  fs::remove_all(dir);
}

// The projection fit (lib/analysis/fourier_fit.cpp) against the least squares it replaces: for each k,
// the 5- or 9-term design solved by the normal equations, the best R^2 kept.
TEST(FourierFit, TheProjectionsEqualTheLeastSquaresFitOfEveryFrequency) {
  for (const int N : {13, 12, 23}) {
    auto n = torch::arange(N, torch::kDouble).repeat_interleave(N), m = torch::arange(N, torch::kDouble).repeat(N);
    const double w3 = 2 * M_PI * 3 / N;
    torch::manual_seed(N);
    auto Y = torch::randn({N * N, 6}, torch::kDouble);
    Y.select(1, 0) += 4 * (w3 * n + 0.2).cos() + (w3 * (n + m)).sin();  // a clear winner, k = 3
    for (const bool products : {false, true}) {
      auto r2 = torch::full({Y.size(1)}, -1e30, torch::kDouble);
      auto best_k = torch::zeros({Y.size(1)}, torch::kLong);
      for (int k = 1; k <= (N - 1) / 2; ++k) {
        const double w = 2 * M_PI * k / N;
        auto cn = (w * n).cos(), sn = (w * n).sin(), cm = (w * m).cos(), sm = (w * m).sin();
        std::vector<torch::Tensor> terms = {cn, sn, cm, sm, torch::ones_like(n)};
        if (products) terms.insert(terms.end(), {cn * cm, cn * sm, sn * cm, sn * sm});
        auto X = torch::stack(terms, 1);
        auto rk = analysis::r_squared(Y, X.matmul(torch::linalg_solve(X.t().matmul(X), X.t().matmul(Y))));
        best_k = torch::where(rk > r2, torch::full_like(best_k, k), best_k);
        r2 = torch::max(rk, r2);
      }
      const auto fit = analysis::single_frequency_fit(Y, N, products);
      EXPECT_LT((fit.r2 - r2).abs().max().item<double>(), 1e-12) << "N " << N << " products " << products;
      EXPECT_TRUE(torch::equal(fit.best_k, best_k)) << fit.best_k << best_k;
      EXPECT_EQ(fit.best_k[0].item<int64_t>(), 3);
    }
  }
}

// The fits M8b and the grokking claims share, on functions whose answer is known.
TEST(FourierFit, SingleFrequencyFormsAreRecoveredExactly) {
  const int N = 23;
  auto n = torch::arange(N, torch::kDouble).repeat_interleave(N), m = torch::arange(N, torch::kDouble).repeat(N);
  const double w = 2 * M_PI * 5 / N;
  // Column 0: M8b's additive form, k = 5. Column 1: cos(w(n+m)), a product form, k = 5. Column 2: noise.
  auto Y = torch::stack({(w * n + 0.3).cos() + 0.7 * (w * m - 1.1).cos() + 2.0, (w * (n + m)).cos(),
                         torch::randn({N * N}, torch::TensorOptions().dtype(torch::kDouble))},
                        1);
  const auto additive = analysis::single_frequency_fit(Y, N, false);
  EXPECT_NEAR(additive.r2[0].item<double>(), 1.0, 1e-9);
  EXPECT_EQ(additive.best_k[0].item<int64_t>(), 5);
  EXPECT_LT(additive.r2[1].item<double>(), 0.05);  // the 5-term form cannot express a product
  EXPECT_LT(additive.r2[2].item<double>(), 0.1);
  const auto products = analysis::single_frequency_fit(Y, N, true);
  EXPECT_NEAR(products.r2[1].item<double>(), 1.0, 1e-9);
  EXPECT_EQ(products.best_k[1].item<int64_t>(), 5);
  EXPECT_NEAR(products.r2[0].item<double>(), 1.0, 1e-9);
  EXPECT_LT(products.r2[2].item<double>(), 0.15);
  EXPECT_NEAR(analysis::additive_fit(Y, N).r2[0].item<double>(), 1.0, 1e-9);
}
