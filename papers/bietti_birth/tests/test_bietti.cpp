// The bietti_birth module: the character statistics, the task's sequences, and its runs trained by
// the engine's trainer (fresh batches every step, the loss at every position or on the in-context
// tokens only, SGD over the unfrozen matrices) resume exactly.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <map>
#include <set>

#include "analysis/registry.h"
#include "catalogue/runs.h"
#include "papers/bietti_birth/module/char_stats.h"
#include "papers/bietti_birth/module/trigger_task.h"
#include "train/checkpoint.h"
#include "train/task_data.h"
#include "train/trainer.h"
#include "tests/resume_helpers.h"
#include "tests/test_helpers.h"

using namespace cc;
using namespace cc::bietti_birth;

namespace {

TaskConfig task(const std::string& triggers = "most_frequent", const std::string& loss_on = "in_context_repeats") {
  TaskConfig t;
  t.seq_len = 64;
  t.triggers = 5;
  t.trigger_choice = triggers;
  t.output_choice = "uniform";
  t.loss_on = loss_on;
  t.statistics = char_stats().sha256;
  return t;
}

train::RunConfig committed_run(const std::string& name) {
  const auto runs = catalogue::Runs::load(std::string(CLAIMCHECK_SOURCE_DIR) + "/papers/bietti_birth/runs.yaml");
  return runs.find(name)->for_seed(0);
}

}  // namespace

TEST(CharStats, AreTheSixtyFiveCharactersOfTinyShakespeare) {
  const CharStats& s = char_stats();
  ASSERT_EQ(s.size(), 65);
  std::string top;
  for (int i = 0; i < 5; ++i) top += s.vocab[static_cast<size_t>(s.by_frequency[static_cast<size_t>(i)])];
  EXPECT_EQ(top, " etoa");
  EXPECT_NEAR(s.unigram.p(s.by_frequency[0]), 169892.0 / 1115394.0, 1e-12);  // ' '
  double total = 0;
  for (int j = 0; j < 65; ++j) total += s.next[0].p(j);
  EXPECT_NEAR(total, 1.0, 1e-12);
}

TEST(TriggerTask, ATriggerIsAlwaysFollowedByTheSequencesOwnOutput) {
  const Sequences s = draw_sequences(task("unigram"), 3, 1, 0, 32);
  for (int64_t b = 0; b < 32; ++b) {
    std::map<int64_t, int64_t> output, seen;
    for (int64_t t = 0; t < 64; ++t) {
      const int64_t occ = s.occurrence[b][t].item<int64_t>();
      if (t + 1 < 64) EXPECT_EQ(s.tokens[b][t + 1].item<int64_t>(), s.next[b][t].item<int64_t>());
      if (occ == 0) continue;
      const int64_t z = s.tokens[b][t].item<int64_t>(), y = s.next[b][t].item<int64_t>();
      if (output.count(z)) EXPECT_EQ(output[z], y) << "sequence " << b << " position " << t;
      output[z] = y;
      EXPECT_EQ(occ, ++seen[z]);
    }
  }
}

TEST(TriggerTask, BatchesAreAFunctionOfSeedAndStepOnly) {
  const auto a = draw_sequences(task(), 0, 7, 11, 8), b = draw_sequences(task(), 0, 7, 11, 8);
  EXPECT_TRUE(torch::equal(a.tokens, b.tokens));
  EXPECT_FALSE(torch::equal(a.tokens, draw_sequences(task(), 0, 7, 12, 8).tokens));
  EXPECT_FALSE(torch::equal(a.tokens, draw_sequences(task(), 1, 7, 11, 8).tokens));
}

TEST(TriggerTask, FixedTriggersAreTheMostFrequentCharacters) {
  const Sequences s = draw_sequences(task(), 0, 1, 0, 16);
  const auto& top = char_stats().by_frequency;
  const auto after_trigger = s.occurrence > 0;
  auto triggers = s.tokens.masked_select(after_trigger);
  for (int64_t i = 0; i < triggers.size(0); ++i)
    EXPECT_NE(std::find(top.begin(), top.begin() + 5, triggers[i].item<int64_t>()), top.begin() + 5);
}

TEST(TriggerTask, OtherTriggersAreNeverTheMostFrequentCharacters) {
  const Sequences s = draw_sequences(task("unigram_not_most_frequent"), 0, 1, 0, 64);
  const auto& top = char_stats().by_frequency;
  const auto triggers = s.tokens.masked_select(s.occurrence > 0);
  ASSERT_GT(triggers.size(0), 0);
  std::set<int64_t> distinct;
  for (int64_t i = 0; i < triggers.size(0); ++i) {
    const int64_t q = triggers[i].item<int64_t>();
    EXPECT_EQ(std::find(top.begin(), top.begin() + 5, q), top.begin() + 5) << "trigger " << q;
    distinct.insert(q);
  }
  EXPECT_GT(distinct.size(), 5u);  // drawn per sequence, not fixed
}

TEST(TriggerFamily, TheOtherTriggersSetIsItsOwnDrawAndNotInTheMetricsLog) {
  const auto data = train::make_task_data(committed_run("simplified"));
  for (const auto& s : data->eval_sets(8, 1)) EXPECT_NE(s.name, "in_context_other_triggers");
  const auto other = data->eval_set("in_context_other_triggers", 8, 1);
  const auto same = data->eval_set("in_context", 8, 1);
  EXPECT_FALSE(torch::equal(other.batch.tokens, same.batch.tokens));
  EXPECT_GT((other.batch.targets != train::kNoTarget).sum().item<int64_t>(), 0);
  EXPECT_TRUE(torch::equal(other.batch.tokens, data->eval_set("in_context_other_triggers", 8, 1).batch.tokens));
}

TEST(TriggerFamily, ReadsTheCommittedRunsAndRefusesOtherStatistics) {
  const auto cfg = committed_run("simplified");
  EXPECT_EQ(cfg.family, "trigger_bigrams");
  EXPECT_EQ(cfg.train.optimizer, "sgd");
  auto j = cfg.to_json();
  j["task"]["statistics"] = std::string(64, '0');
  EXPECT_THROW(train::RunConfig::from_json(j), Error);
}

TEST(TriggerFamily, TrainBatchesHaveTargetsOnTheInContextTokensOnly) {
  auto cfg = committed_run("simplified");
  const auto data = train::make_task_data(cfg);
  const auto batch = data->train_batch(0);
  ASSERT_TRUE(batch.every_position());
  const auto sets = data->eval_sets(16, 1);
  ASSERT_EQ(sets.size(), 3u);
  // The three sets split the same sequences' targets: every position is in exactly one.
  auto covered = torch::zeros_like(sets[0].batch.targets);
  for (const auto& s : sets) covered += (s.batch.targets != train::kNoTarget).to(torch::kLong);
  EXPECT_TRUE(torch::equal(covered, torch::ones_like(covered)));
}

TEST(TriggerFamily, AResumedRunEqualsAnUninterruptedOne) {
  auto cfg = committed_run("simplified");
  cfg.train.steps = 12;
  cfg.train.batch_size = 8;
  cfg.train.eval_every = 4;
  cfg.train.eval_size = 8;
  cfg.train.resume_every = 4;
  cfg.train.checkpoint_every = 0;
  cfg.train.checkpoint_steps = {};
  const std::string whole_dir = test::fresh_dir("bietti_whole");
  EXPECT_EQ(test::resume_difference(cfg, whole_dir, test::fresh_dir("bietti_resumed"), 8), 0.0);
  const auto whole = test::final_weights(whole_dir);
  model::Transformer init(cfg.model);
  init.init(cfg.seed);
  EXPECT_TRUE(torch::equal(whole->W_E(), init.W_E()));  // frozen
  EXPECT_FALSE(torch::equal(whole->W_K(0), init.W_K(0)));
}

namespace {

// The simplified model's shape with chosen weights: one-hot tokens (rows 0..64; zero without `tokens`,
// so that only positions move attention) and positions, block 1 attending from t to t - 1 with a large
// score, identity value/output maps, W_U = W_E^T.
train::Checkpoint constructed(bool previous_token_head, bool tokens = true) {
  train::Checkpoint ck;
  ck.config = committed_run("simplified");
  ck.path = "constructed";
  ck.model = std::make_shared<model::Transformer>(ck.config.model);
  const int64_t D = ck.config.model.d_model, N = 65, T = ck.config.model.n_ctx;
  std::map<std::string, torch::Tensor> w;
  for (const auto& [name, t] : ck.model->named_parameters()) w[name] = torch::zeros_like(t);
  if (tokens) w["embed.W_E"] = torch::eye(D).slice(0, 0, N);
  w["pos_embed.W_pos"] = torch::eye(D).slice(0, 0, T);
  w["unembed.W_U"] = torch::eye(D).slice(1, 0, N);
  const auto I = torch::eye(D).unsqueeze(0);
  for (const char* m : {"blocks.0.attn.W_V", "blocks.0.attn.W_O", "blocks.1.attn.W_V", "blocks.1.attn.W_O",
                        "blocks.1.attn.W_Q", "blocks.1.attn.W_K"})
    w[m] = I;
  w["blocks.0.attn.W_Q"] = I * 40.0 * std::sqrt(static_cast<double>(D));
  auto shift = torch::zeros({D, D});  // row e_{t-1} -> column t: k_{t-1} . q_t is large
  if (previous_token_head)
    for (int64_t t = 1; t < T; ++t) shift[t - 1][t] = 1.0;
  w["blocks.0.attn.W_K"] = shift.unsqueeze(0);
  ck.model->load(w);
  return ck;
}

analysis::Measurement measure(const std::string& kind, const train::Checkpoint& ck, const std::string& yaml) {
  const auto* k = analysis::builtin_registry().find(kind);
  EXPECT_NE(k, nullptr) << kind;
  auto doc = load_yaml_string(yaml, "params.yaml");
  return k->measure(analysis::MeasureInput{ck, k->parse_params(ObjectReader(doc, ""))});
}

}  // namespace

TEST(BiettiKinds, AnExactPreviousTokenHeadAndItsMemoriesScoreOne) {
  EXPECT_DOUBLE_EQ(
      measure("previous_token_attention", constructed(true, false), "{layer: 1, size: 8, eval_seed: 1}").value, 1.0);
  const auto ck = constructed(true);
  for (const char* m : {"W_O2", "W_K2", "W_K1"})
    EXPECT_DOUBLE_EQ(measure("memory_recall", ck, std::string("{matrix: ") + m + "}").value, 1.0) << m;
}

TEST(BiettiKinds, WithoutThePositionalMemoryBlockOneAttendsElsewhere) {
  const auto ck = constructed(false, false);  // W_K^1 = 0: uniform attention, its argmax the first position
  EXPECT_LT(measure("previous_token_attention", ck, "{layer: 1, size: 8, eval_seed: 1}").value, 0.05);
  EXPECT_LT(measure("memory_recall", ck, "{matrix: W_K1}").value, 0.05);
  EXPECT_THROW(measure("induction_attention", ck, "{layer: 3, size: 8}"), analysis::NotComputable);
}
