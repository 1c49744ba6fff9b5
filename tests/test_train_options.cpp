// The engine's training options a paper can ask for beyond AdamW at the last position: a loss at
// every position (kNoTarget where a position has none), SGD with momentum, frozen parameters and
// per-parameter initialisation. Each is checked against its definition, on no paper's task.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>

#include "model/transformer.h"
#include "train/checkpoint.h"
#include "train/loss.h"
#include "train/memory_estimate.h"
#include "train/step_engine.h"
#include "train/trainer.h"
#include "test_helpers.h"
#include "train_helpers.h"
#include "resume_helpers.h"

using namespace cc;
using cc::test::fresh_dir;
using cc::test::tiny_run;

namespace {

// Two attention-only blocks of one 8-wide head over 5 tokens and 6 positions.
model::ModelConfig attention_only(std::map<std::string, nlohmann::json> init = {}) {
  model::ModelConfig m;
  m.d_model = 8;
  m.d_head = 8;
  m.n_heads = 1;
  m.d_mlp = 1;
  m.activation = "relu";
  m.output_vocab = "full";
  m.init_std = 0.3;
  m.n_layers = 2;
  m.init = std::move(init);
  m.derive({5, 5, 6});
  return m;
}

train::Batch every_position_batch() {
  constexpr int64_t none = train::kNoTarget;
  auto tokens = torch::tensor(std::vector<int64_t>{0, 1, 2, 3, 4, 0, 4, 3, 2, 1, 0, 4}).view({2, 6});
  auto targets = torch::tensor(std::vector<int64_t>{1, 2, 3, 4, 0, none, none, 2, 1, 0, 4, 3}).view({2, 6});
  return {tokens, targets};
}

}  // namespace

TEST(EveryPositionLoss, IsTheMeanOverThePositionsThatHaveATarget) {
  auto logits = torch::randn({2, 6, 5}, torch::TensorOptions().dtype(torch::kFloat64));
  const auto batch = every_position_batch();
  double sum = 0;
  int n = 0;
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 6; ++t) {
      const int64_t y = batch.targets[b][t].item<int64_t>();
      if (y == train::kNoTarget) continue;
      sum -= torch::log_softmax(logits[b][t], -1)[y].item<double>();
      ++n;
    }
  EXPECT_NEAR(train::cross_entropy(logits, batch.targets, "float64").item<double>(), sum / n, 1e-12);
  EXPECT_NEAR(train::cross_entropy(logits, batch.targets, "float64", train::LossReduction::Sum).item<double>(), sum,
              1e-12);
  EXPECT_TRUE(batch.every_position());
}

TEST(EveryPositionLoss, ForwardIsTheAnalysisPathWithoutTheCache) {
  model::Transformer m(attention_only());
  m.init(3);
  const auto tokens = every_position_batch().tokens;
  model::ActivationCache cache;
  torch::NoGradGuard no_grad;
  const auto all = m.forward(tokens);
  EXPECT_TRUE(torch::allclose(all, m.run_with_cache(tokens, cache), 1e-6, 1e-6));
  EXPECT_TRUE(torch::allclose(all.select(1, 5), m.forward_last(tokens), 1e-5, 1e-6));
}

TEST(Sgd, OneStepIsMomentumSgdWithL2DecayAndLeavesFrozenParametersAlone) {
  train::TrainConfig tc;
  tc.optimizer = "sgd";
  tc.lr = 0.1;
  tc.momentum = 0.9;
  tc.weight_decay = 0.01;
  tc.frozen = {"embed.W_E", "blocks.0.attn.W_V"};
  model::Transformer m(attention_only());
  m.init(5);
  model::Transformer before(attention_only());
  before.init(5);
  auto opt = train::make_optimizer(tc, train::trainable_parameters(tc, m));
  auto engine = train::make_step_engine(tc, m, *opt, torch::kCPU);
  const auto batch = every_position_batch();
  // The gradient at the initial weights, by autograd on a copy.
  model::Transformer probe(attention_only());
  probe.init(5);
  auto loss = train::cross_entropy(probe.forward(batch.tokens), batch.targets, "float32");
  loss.backward();
  engine->step(0, batch);
  engine->publish();
  for (const auto& [name, w] : m.named_parameters()) {
    const bool frozen = name == "embed.W_E" || name == "blocks.0.attn.W_V";
    EXPECT_EQ(w.requires_grad(), !frozen) << name;
    if (frozen) {
      EXPECT_TRUE(torch::equal(w, before.param(name))) << name;
      continue;
    }
    // The first step: buffer = g + wd w, w -= lr buffer.
    const auto g = probe.param(name).grad() + tc.weight_decay * before.param(name);
    EXPECT_TRUE(torch::allclose(w, before.param(name) - tc.lr * g, 1e-5, 1e-6)) << name;
  }
}

TEST(Sgd, ResumesExactlyWithFrozenParameters) {
  auto cfg = tiny_run(30);
  cfg.train.optimizer = "sgd";
  cfg.train.momentum = 0.9;
  cfg.train.lr = 0.05;
  cfg.train.frozen = {"embed.W_E"};
  const std::string whole_dir = fresh_dir("sgd_whole");
  EXPECT_EQ(test::resume_difference(cfg, whole_dir, fresh_dir("sgd_resumed"), 20), 0.0);
  const auto whole = test::final_weights(whole_dir);
  model::Transformer init(cfg.model);
  init.init(cfg.seed);
  EXPECT_TRUE(torch::equal(whole->W_E(), init.W_E()));
  EXPECT_FALSE(torch::equal(whole->W_U(), init.W_U()));
}

TEST(Sgd, IsPartOfTheHashAndAnAdamWConfigKeepsItsOwn) {
  auto adamw = tiny_run(30);
  const auto keys = adamw.train.to_json();
  for (const char* k : {"optimizer", "momentum", "frozen"}) EXPECT_FALSE(keys.contains(k)) << k;
  auto sgd = adamw;
  sgd.train.optimizer = "sgd";
  sgd.train.momentum = 0.9;
  EXPECT_NE(sgd.weights_hash(), adamw.weights_hash());
  auto frozen = adamw;
  frozen.train.frozen = {"embed.W_E"};
  EXPECT_NE(frozen.weights_hash(), adamw.weights_hash());
}

TEST(Sgd, TheBlasEngineAndUnknownParametersAreRefused) {
  train::TrainConfig tc;
  tc.optimizer = "sgd";
  tc.lr = 0.1;
  tc.engine = "blas";
  model::Transformer m(attention_only());
  auto opt = train::make_optimizer(tc, m.parameters());
  EXPECT_THROW(train::make_step_engine(tc, m, *opt, torch::kCPU), Error);
  tc.engine = "libtorch";
  tc.frozen = {"embed.W_X"};
  try {
    train::trainable_parameters(tc, m);
    FAIL() << "an unknown frozen parameter was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("embed.W_X"), std::string::npos);
  }
}

TEST(ParameterInit, AnOverrideChangesThatParameterOnly) {
  model::Transformer plain(attention_only());
  plain.init(7);
  model::Transformer over(attention_only({{"embed.W_E", 1.5}, {"blocks.1.attn.W_Q", "identity"}}));
  over.init(7);
  for (const auto& [name, w] : plain.named_parameters()) {
    if (name == "embed.W_E") {
      EXPECT_TRUE(torch::allclose(over.param(name), w * (1.5 / 0.3), 1e-6, 1e-7));
    } else if (name == "blocks.1.attn.W_Q") {
      EXPECT_TRUE(torch::equal(over.param(name)[0], torch::eye(8)));
    } else {
      EXPECT_TRUE(torch::equal(over.param(name), w)) << name;
    }
  }
  model::Transformer unknown(attention_only({{"blocks.2.attn.W_Q", "identity"}}));
  EXPECT_THROW(unknown.init(7), Error);
}

TEST(ParameterInit, IsReadFromYamlAndWrittenOnlyWhenSet) {
  auto doc = load_yaml_string(
      "{d_model: 8, d_head: 8, n_heads: 1, d_mlp: 1, activation: relu, output_vocab: full, init_std: 0.3,"
      " n_layers: 2, mlp_layers: [], init: {embed.W_E: 1.0, blocks.0.attn.W_Q: identity}}",
      "model.yaml");
  const auto m = model::ModelConfig::from_yaml(ObjectReader(doc, ""), {5, 5, 6});
  EXPECT_EQ(m.init.at("blocks.0.attn.W_Q"), "identity");
  EXPECT_EQ(model::ModelConfig::from_json(m.to_json(), {5, 5, 6}).to_json(), m.to_json());
  EXPECT_FALSE(attention_only().to_json().contains("init"));
  auto bad = load_yaml_string(
      "{d_model: 8, d_head: 8, n_heads: 1, d_mlp: 1, activation: relu, output_vocab: full, init_std: 0.3,"
      " n_layers: 2, mlp_layers: [], init: {embed.W_E: -1}}",
      "bad.yaml");
  EXPECT_THROW(model::ModelConfig::from_yaml(ObjectReader(bad, ""), {5, 5, 6}), Error);
}

TEST(TrainConfigYaml, SgdNeedsItsMomentumAndTakesNoAdamField) {
  auto read = [](const std::string& text) {
    auto doc = load_yaml_string(text, "train.yaml");
    return train::TrainConfig::from_yaml(ObjectReader(doc, ""));
  };
  const auto ok = read(
      "{steps: 10, batch_size: 4, optimizer: sgd, lr: 0.1, weight_decay: 0, momentum: 0.9,"
      " frozen: [embed.W_E]}");
  EXPECT_EQ(ok.optimizer, "sgd");
  EXPECT_EQ(ok.frozen, std::vector<std::string>{"embed.W_E"});
  EXPECT_THROW(read("{steps: 10, batch_size: 4, optimizer: sgd, lr: 0.1, weight_decay: 0}"), Error);
  EXPECT_THROW(read("{steps: 10, batch_size: 4, optimizer: sgd, lr: 0.1, weight_decay: 0, momentum: 0.9, beta1: 0.9}"),
               Error);
  EXPECT_THROW(read("{steps: 10, batch_size: 4, optimizer: sgd, lr: 0.1, weight_decay: 0, momentum: 0.9,"
                    " frozen: [embed.W_E, embed.W_E]}"),
               Error);
}

TEST(Divergence, ANonFiniteLossStopsTrainingWithAnErrorBeforeAnythingIsSaved) {
  auto cfg = tiny_run(30);
  cfg.train.lr = 1e30;  // AdamW's first steps move every weight by about lr: the logits overflow
  train::TrainOptions o = train::TrainOptions::silent();
  o.out_dir = fresh_dir("diverged");
  try {
    train::Trainer(cfg, o).run();
    FAIL() << "a diverged run trained to the end";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("training diverged"), std::string::npos) << e.what();
  }
  // Step 0 (the initialisation) is the only checkpoint: no non-finite weights were written.
  EXPECT_EQ(train::list_checkpoints(o.out_dir), std::vector<int64_t>{0});
}

// The logits counted as the loss's backward holds them: a float64 loss keeps three more floats an entry
// (the log-probabilities, their gradient and the one it makes, as doubles); at a small batch each is a
// block from the kept heap, counted twice (train/memory_estimate.cpp).
TEST(MemoryBudget, AFloat64LossCountsThreeMoreFloatsPerLogit) {
  auto cfg = tiny_run(30);
  const train::BatchShape batch{cfg.train.batch_size, cfg.model.n_ctx, false};
  const int64_t in_float32 = train::estimate_training_memory(cfg, batch).activations;
  cfg.train.loss_precision = "float64";
  const int64_t in_float64 = train::estimate_training_memory(cfg, batch).activations;
  EXPECT_EQ(in_float64 - in_float32, 3 * int64_t{cfg.model.d_vocab_out} * batch.rows * 4 * 2);
}

// A tensor of 32 MB or more is mapped while training and given back when freed: counted once; a smaller
// one, from the kept heap, twice (util/heap.h). At one row every block is small, at 2^24 rows none is.
TEST(MemoryBudget, ABlockFromTheKeptHeapIsCountedTwiceAMappedOneOnce) {
  auto cfg = tiny_run(30);
  const int64_t few = 1, many = int64_t{1} << 24;
  const auto per_row = [&](int64_t rows) {
    return train::estimate_training_memory(cfg, {rows, cfg.model.n_ctx, false}).activations / rows;
  };
  EXPECT_EQ(per_row(few), 2 * per_row(many));
  EXPECT_GT(per_row(many), 0);
}

// A run past the memory budget is refused before the model, the optimizer or a batch is allocated, with
// the estimate in the message (`train --batch 1000000` tried 41 GB and ended in "internal error").
TEST(MemoryBudget, ARunPastTheBudgetIsRefusedBeforeAnythingIsAllocated) {
  ::unsetenv("CLAIMCHECK_TRAIN_MEMORY_MB");  // the default budget
  auto cfg = tiny_run(30);
  const train::BatchShape batch{cfg.train.batch_size, cfg.model.n_ctx, false};
  const auto small = train::estimate_training_memory(cfg, batch);
  EXPECT_GT(small.activations, 0);
  EXPECT_LT(small.total(), train::training_memory_budget());
  EXPECT_GT(train::estimate_training_memory(cfg, {1000000, cfg.model.n_ctx, false}).total(), 100 * small.total());
  EXPECT_GT(train::estimate_training_memory(cfg, {batch.rows, batch.seq_len, true}).total(), small.total());
  // An ensemble stacks its members' tensors: its blocks are those of one member with all their rows.
  const auto ensemble = train::estimate_training_memory(cfg, batch, 32);
  EXPECT_EQ(ensemble.parameters, 32 * small.parameters);
  EXPECT_EQ(ensemble.activations,
            train::estimate_training_memory(cfg, {32 * batch.rows, batch.seq_len, false}).activations);
  EXPECT_GT(ensemble.total(), small.total());

  cfg.train.batch_size = 100000000;
  train::TrainOptions o = train::TrainOptions::silent();
  o.out_dir = fresh_dir("over-budget");
  try {
    train::Trainer(cfg, o);
    FAIL() << "a run estimated past the budget was started";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("training would take about"), std::string::npos) << m;
    EXPECT_NE(m.find("past the budget of 8192 MB"), std::string::npos) << m;
  }
  EXPECT_TRUE(train::list_checkpoints(o.out_dir).empty());

  ::setenv("CLAIMCHECK_TRAIN_MEMORY_MB", "lots", 1);
  EXPECT_THROW(train::training_memory_budget(), Error);
  ::setenv("CLAIMCHECK_TRAIN_MEMORY_MB", "100", 1);
  EXPECT_EQ(train::training_memory_budget(), int64_t{100} << 20);
  ::unsetenv("CLAIMCHECK_TRAIN_MEMORY_MB");
}

// A resume point's optimizer state carries its own sha256: one flipped byte is an error naming the file,
// not a run that trains on into a different model (the weights were checked; the moments were not).
TEST(ResumePoint, AFlippedByteInTheOptimizerStateIsAnError) {
  for (const std::string optimizer : {"adamw", "sgd"}) {
    auto cfg = tiny_run(20);
    if (optimizer == "sgd") {
      cfg.train.optimizer = "sgd";
      cfg.train.momentum = 0.9;
    }
    train::TrainOptions o = train::TrainOptions::silent();
    o.out_dir = fresh_dir("flipped-" + optimizer);
    o.stop_after = 10;
    train::Trainer(cfg, o).run();
    const std::string state = train::optimizer_path(train::checkpoint_path(o.out_dir, 10));
    std::fstream f(state, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-3, std::ios::end);
    char c = 0;
    f.read(&c, 1);
    c ^= 0x10;
    f.seekp(-3, std::ios::end);
    f.write(&c, 1);
    f.close();
    o.stop_after = -1;
    try {
      train::Trainer(cfg, o).run();
      FAIL() << optimizer << ": resumed from a changed optimizer state";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("optimizer state's sha256 differs"), std::string::npos) << e.what();
    }
  }
}

// A crash between a checkpoint's weights and its sidecar leaves weights no sidecar describes. The next
// run resumes (or starts) as if that save had not begun, and replaces them; it refused the folder
// ("missing sidecar") until the file was deleted by hand.
TEST(ResumePoint, WeightsWithoutTheirSidecarAreNotACheckpoint) {
  const auto cfg = tiny_run(30);
  train::TrainOptions o = train::TrainOptions::silent();
  // Interrupted in the first save: only step 0's weights.
  o.out_dir = fresh_dir("orphan-first");
  o.stop_after = 0;
  train::Trainer(cfg, o).run();
  const std::string first = train::checkpoint_path(o.out_dir, 0);
  std::filesystem::remove(train::sidecar_path(first));
  std::filesystem::remove(train::optimizer_path(first));
  o.stop_after = -1;
  train::Trainer again(cfg, o);
  EXPECT_EQ(again.start_step(), 0);
  again.run();
  // Interrupted in a later save: step 30's weights beside the resume point at 20.
  train::TrainOptions whole = train::TrainOptions::silent();
  whole.out_dir = fresh_dir("orphan-whole");
  train::Trainer full(cfg, whole);
  full.run();
  o.out_dir = fresh_dir("orphan-later");
  o.stop_after = 20;
  train::Trainer(cfg, o).run();
  std::filesystem::copy_file(train::checkpoint_path(o.out_dir, 20), train::checkpoint_path(o.out_dir, 30));
  o.stop_after = -1;
  train::Trainer resumed(cfg, o);
  EXPECT_EQ(resumed.start_step(), 20);
  resumed.run();
  for (const auto& [name, t] : full.model().named_parameters())
    EXPECT_TRUE(torch::equal(t, resumed.model().param(name))) << name;
  EXPECT_TRUE(std::filesystem::exists(train::sidecar_path(train::checkpoint_path(o.out_dir, 30))));
}
