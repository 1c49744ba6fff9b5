// The transformer: TransformerLens shapes and hook names; the training path and the cached
// analysis path agree.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <set>

#include "model/transformer.h"
#include "papers/assign_and_add/module/task/eval_sets.h"
#include "train/run_config.h"
#include "util/error.h"
#include "papers/assign_and_add/module/task_family.h"

using namespace cc;
namespace task = cc::assign_and_add::task;  // the paper module whose runs these tests train

namespace {

model::ModelConfig default_model() {
  model::ModelConfig m = assign_and_add::model_config();
  m.derive(assign_and_add::token_space(task::TaskConfig{}));
  return m;
}

torch::Tensor some_tokens(int n) {
  task::Sampler s{task::TaskConfig{}};
  return assign_and_add::tokens_tensor(task::make_eval_set(s, "test_2", n, 5).examples);
}

// Every activation of `m` on `n` sequences, by TransformerLens name.
model::ActivationCache cache_of(const model::Transformer& m, int n) {
  torch::NoGradGuard no_grad;
  model::ActivationCache cache;
  m.run_with_cache(some_tokens(n), cache);
  return cache;
}

}  // namespace

TEST(Model, ParameterNamesAndShapesFollowTransformerLens) {
  model::Transformer m(default_model());
  std::map<std::string, std::vector<int64_t>> expect = {{"embed.W_E", {74, 128}},
                                                        {"pos_embed.W_pos", {16, 128}},
                                                        {"blocks.0.attn.W_Q", {1, 128, 128}},
                                                        {"blocks.0.attn.W_O", {1, 128, 128}},
                                                        {"blocks.1.attn.W_K", {1, 128, 128}},
                                                        {"blocks.1.mlp.W_in", {128, 512}},
                                                        {"blocks.1.mlp.W_out", {512, 128}},
                                                        {"unembed.W_U", {128, 74}}};
  for (const auto& [name, shape] : expect) EXPECT_EQ(m.param(name).sizes().vec(), shape) << name;
  EXPECT_EQ(m.named_parameters().size(), 13u);  // no biases, no layer-1 MLP
  EXPECT_THROW(m.param("blocks.0.mlp.W_in"), Error);
  EXPECT_EQ(m.W_Q(1).sizes().vec(), (std::vector<int64_t>{128, 128}));
}

TEST(Model, OutputVocabularyOption) {
  model::ModelConfig c = assign_and_add::model_config();
  c.output_vocab = "numbers";
  c.derive(assign_and_add::token_space(task::TaskConfig{}));
  EXPECT_EQ(model::Transformer(c).W_U().size(1), 59);
}

TEST(Model, InitIsSeededAndHasTheConfiguredScale) {
  model::Transformer a(default_model()), b(default_model()), c(default_model());
  a.init(3);
  b.init(3);
  c.init(4);
  EXPECT_TRUE(torch::equal(a.W_E(), b.W_E()));
  EXPECT_FALSE(torch::equal(a.W_E(), c.W_E()));
  EXPECT_NEAR(a.W_in().std().item<double>(), 0.8 / std::sqrt(128.0), 0.003);
}

TEST(Model, TrainingPathEqualsCachedPathAtTheLastPosition) {
  model::Transformer m(default_model());
  m.init(1);
  torch::NoGradGuard no_grad;
  auto tokens = some_tokens(64);
  model::ActivationCache cache;
  auto full = m.run_with_cache(tokens, cache);  // [B, T, V]
  auto last = m.forward_last(tokens);           // [B, V]
  EXPECT_EQ(full.sizes().vec(), (std::vector<int64_t>{64, 16, 74}));
  EXPECT_LT((full.select(1, 15) - last).abs().max().item<double>(), 1e-5);
}

TEST(Model, CacheHasTransformerLensHookNamesAndShapes) {
  model::Transformer m(default_model());
  m.init(1);
  auto cache = cache_of(m, 8);
  const std::vector<int64_t> resid = {8, 16, 128};
  for (const char* n :
       {"hook_embed", "hook_pos_embed", "blocks.0.hook_resid_pre", "blocks.0.hook_attn_out", "blocks.0.hook_resid_post",
        "blocks.1.hook_resid_pre", "blocks.1.hook_resid_mid", "blocks.1.hook_mlp_out", "blocks.1.hook_resid_post"})
    EXPECT_EQ(cache[n].sizes().vec(), resid) << n;
  EXPECT_EQ(cache["blocks.0.attn.hook_pattern"].sizes().vec(), (std::vector<int64_t>{8, 1, 16, 16}));
  EXPECT_EQ(cache["blocks.1.attn.hook_q"].sizes().vec(), (std::vector<int64_t>{8, 16, 1, 128}));
  EXPECT_EQ(cache["blocks.1.mlp.hook_pre"].sizes().vec(), (std::vector<int64_t>{8, 16, 512}));
  // Patterns are causal probability distributions.
  auto p = cache["blocks.0.attn.hook_pattern"];
  EXPECT_LT((p.sum(-1) - 1).abs().max().item<double>(), 1e-5);
  EXPECT_EQ(p[0][0][3][4].item<float>(), 0.0f);
  EXPECT_THROW(cache["blocks.0.mlp.hook_pre"], Error);
}

TEST(Model, ResidualStreamDecomposes) {
  // resid_mid = resid_pre + attn_out; resid_post = resid_mid + mlp_out (no layer norm).
  model::Transformer m(default_model());
  m.init(2);
  auto c = cache_of(m, 4);
  torch::NoGradGuard no_grad;
  EXPECT_TRUE(
      torch::allclose(c["blocks.1.hook_resid_mid"], c["blocks.1.hook_resid_pre"] + c["blocks.1.hook_attn_out"]));
  EXPECT_TRUE(
      torch::allclose(c["blocks.1.hook_resid_post"], c["blocks.1.hook_resid_mid"] + c["blocks.1.hook_mlp_out"]));
  EXPECT_TRUE(torch::allclose(c["blocks.1.mlp.hook_pre"], c["blocks.1.hook_resid_mid"].matmul(m.W_in()), 1e-5, 1e-5));
}

// Other shapes from the same code: n_layers blocks, an MLP where mlp_layers says. Nanda et al.
// (2023)'s one-layer model (4 heads of 32, its MLP in block 0) and a three-block model with an MLP in
// every block: TransformerLens names, and the training path equal to the cached path's last position.
TEST(Model, OtherShapesKeepNamesAndTheTwoPathsAgree) {
  for (const auto& [layers, mlps] : std::vector<std::pair<int, std::vector<int>>>{{1, {0}}, {3, {0, 1, 2}}, {3, {}}}) {
    model::ModelConfig c = default_model();
    c.n_layers = layers;
    c.mlp_layers = mlps;
    c.n_heads = 4;
    c.d_head = 32;
    model::Transformer m(c);
    m.init(3);
    std::vector<std::string> names;
    for (const auto& [name, t] : m.named_parameters()) names.push_back(name);
    EXPECT_EQ(names.front(), "embed.W_E");
    EXPECT_EQ(names.back(), "unembed.W_U");
    EXPECT_EQ(names.size(), 3u + 4u * layers + 2u * mlps.size());
    for (int l = 0; l < layers; ++l) {
      const std::string b = "blocks." + std::to_string(l) + ".";
      EXPECT_EQ(m.param(b + "attn.W_Q").sizes().vec(), (std::vector<int64_t>{4, 128, 32}));
      EXPECT_EQ(c.has_mlp(l), std::count(names.begin(), names.end(), b + "mlp.W_in") == 1) << b;
    }
    torch::NoGradGuard no_grad;
    model::ActivationCache cache;
    const auto tokens = some_tokens(16);
    auto full = m.run_with_cache(tokens, cache);
    EXPECT_TRUE(torch::allclose(m.forward_last(tokens), full.select(1, -1), 1e-5, 1e-5)) << layers << " layers";
    for (int l : mlps)
      EXPECT_EQ(cache["blocks." + std::to_string(l) + ".mlp.hook_pre"].sizes().vec(),
                (std::vector<int64_t>{16, 16, 512}));
    if (mlps.empty()) EXPECT_THROW(m.W_in(), Error);
  }
}

// record(): the reads only, each under its key, with run_with_cache's values: bit for bit where a hook is read at
// every position, and at one position where it is computed at every position anyway (the embeddings, every
// block's resid_pre, k and v); to float rounding for a block's query side read at one position, which is computed
// for that position alone (its products run over other rows, and its attention row is a sum, not a matmul).
// A pattern or scores read at one position is its query row.
TEST(Model, RecordKeepsItsReadsWithRunWithCachesValues) {
  for (const auto& [layers, mlps] : std::vector<std::pair<int, std::vector<int>>>{{2, {1}}, {3, {0, 1, 2}}}) {
    model::ModelConfig c = default_model();
    c.n_layers = layers;
    c.mlp_layers = mlps;
    model::Transformer m(c);
    m.init(4);
    torch::NoGradGuard no_grad;
    const auto tokens = some_tokens(40);
    model::ActivationCache full;
    m.run_with_cache(tokens, full);
    const std::string last = "blocks." + std::to_string(layers - 1) + ".";
    const std::set<model::HookRead> reads = {{"hook_pos_embed", 3},           {"blocks.0.attn.hook_pattern"},
                                             {last + "hook_resid_pre", 9},    {last + "attn.hook_k", 9},
                                             {last + "attn.hook_pattern", 9}, {last + "attn.hook_attn_scores", 4},
                                             {last + "hook_resid_mid", 9},    {last + "hook_resid_post", 9},
                                             {last + "hook_resid_post", 15},  {last + "mlp.hook_pre"}};
    const auto got = m.record(tokens, reads);
    std::vector<std::string> keys;
    for (const auto& r : reads) keys.push_back(r.key());
    std::sort(keys.begin(), keys.end());
    EXPECT_EQ(got.names(), keys);
    for (const auto& r : reads) {
      const bool query_row = r.hook.find("attn.hook_pattern") != std::string::npos ||
                             r.hook.find("attn.hook_attn_scores") != std::string::npos;
      const auto want = r.position < 0 ? full[r.hook] : full[r.hook].select(query_row ? 2 : 1, r.position);
      EXPECT_EQ(got[r.key()].sizes(), want.sizes()) << r.key();
      const bool apart = r.position >= 0 && r.hook.rfind(last, 0) == 0 &&
                         r.hook.find("resid_pre") == std::string::npos && r.hook.find("hook_k") == std::string::npos;
      if (apart)
        EXPECT_TRUE(torch::allclose(got[r.key()], want, 1e-5, 1e-5)) << r.key();
      else
        EXPECT_TRUE(torch::equal(got[r.key()], want)) << r.key();
      EXPECT_TRUE(got[r.key()].is_contiguous() && got[r.key()].storage().nbytes() == got[r.key()].nbytes())
          << r.key() << " is a view: a cache would keep more than it counts";
    }
  }
}

// What else is read with a hook never changes its value: each position's query side (attention row, MLP) runs on
// its own, whether or not it also runs over every position (read there, or needed by a block after it).
TEST(Model, RecordsAReadTheSameWhateverIsReadWithIt) {
  model::ModelConfig c = default_model();
  c.n_layers = 3;
  c.mlp_layers = {0, 1, 2};
  model::Transformer m(c);
  m.init(5);
  torch::NoGradGuard no_grad;
  const auto tokens = some_tokens(40);
  for (const model::HookRead read : {model::HookRead{"blocks.2.hook_resid_post", 9},
                                     {"blocks.1.mlp.hook_post", 9},
                                     {"blocks.2.hook_resid_mid", 9},
                                     {"blocks.2.attn.hook_pattern", 9}}) {
    const auto alone = m.record(tokens, {read})[read.key()];
    const std::string b = read.hook.substr(0, 9);  // "blocks.L."
    const auto with = m.record(tokens, {read,
                                        {b + "hook_resid_post", 4},
                                        {b + "mlp.hook_post"},
                                        {b + "attn.hook_pattern"},
                                        {"blocks.2.hook_resid_mid", 9},
                                        {"blocks.2.attn.hook_z", 9}});
    EXPECT_TRUE(torch::equal(with[read.key()], alone)) << read.key();
  }
}

TEST(Model, RecordNamesAHookItDoesNotHaveAndAPositionOutsideTheSequence) {
  model::Transformer m(default_model());
  m.init(1);
  torch::NoGradGuard no_grad;
  const auto tokens = some_tokens(4);
  try {
    m.record(tokens, {{"blocks.0.mlp.hook_pre", 9}});  // block 0 has no MLP
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'blocks.0.mlp.hook_pre' is not a hook of this model"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("blocks.1.mlp.hook_pre"), std::string::npos) << "names those it has";
  }
  EXPECT_THROW(m.record(tokens, {{"blocks.1.hook_resid_mid", 16}}), Error);
  EXPECT_THROW(m.record(tokens, {{"blocks.1.hook_resid_mid", -2}}), Error);
  EXPECT_TRUE(m.record(tokens, {}).names().empty());
}

TEST(Model, HookNamesAreWhatRunWithCacheRecords) {
  for (const auto& mlps : std::vector<std::vector<int>>{{1}, {0, 1}, {}}) {
    model::ModelConfig c = default_model();
    c.mlp_layers = mlps;
    model::Transformer m(c);
    auto names = m.hook_names();
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, cache_of(m, 2).names());
  }
}

// The layer fields are in a config's JSON (and hash) only when not the key-less 2-block shape, so that
// every committed run keeps its config_hash; a shape with other blocks must say which have an MLP; and
// the engine has no default shape: every other field is required.
TEST(Model, LayerFieldsAreWrittenOnlyWhenNotTheDefaults) {
  const auto d = default_model().to_json();
  EXPECT_FALSE(d.contains("n_layers"));
  EXPECT_FALSE(d.contains("mlp_layers"));
  EXPECT_EQ(default_model().to_json(true)["mlp_layers"], nlohmann::json::array({1}));
  auto one = default_model();
  one.n_layers = 1;
  one.mlp_layers = {0};
  EXPECT_EQ(one.to_json()["mlp_layers"], nlohmann::json::array({0}));
  const auto tokens = assign_and_add::token_space(task::TaskConfig{});
  EXPECT_EQ(model::ModelConfig::from_json(one.to_json(), tokens).mlp_layers, std::vector<int>{0});
  const nlohmann::json base = default_model().to_json();  // every field, key-less layers
  EXPECT_EQ(model::ModelConfig::from_json(base, tokens).mlp_layers, std::vector<int>{1});
  auto with = [&](nlohmann::json extra) {
    nlohmann::json j = base;
    j.update(extra);
    return j;
  };
  EXPECT_THROW(model::ModelConfig::from_json(with({{"n_layers", 1}}), tokens), Error);
  EXPECT_THROW(model::ModelConfig::from_json(with({{"n_layers", 2}, {"mlp_layers", {2}}}), tokens), Error);
  EXPECT_THROW(model::ModelConfig::from_json(with({{"n_layers", 2}, {"mlp_layers", {1, 0}}}), tokens), Error);
  for (const char* key : {"d_model", "d_head", "n_heads", "d_mlp", "activation", "output_vocab", "init_std"}) {
    nlohmann::json j = base;
    j.erase(key);
    EXPECT_THROW(model::ModelConfig::from_json(j, tokens), Error) << key << " has an engine default";
  }
}

// The model knows no task: its vocabulary and context come from the token space it is given, and
// an empty or inconsistent one is an error rather than a zero-sized embedding.
TEST(Model, TakesItsVocabularyAndContextFromTheTokenSpaceItIsGiven) {
  model::ModelConfig c;
  EXPECT_THROW(c.derive({}), Error);
  EXPECT_THROW(c.derive({10, 11, 3}), Error);  // more answers than tokens
  c.derive({10, 4, 3});
  EXPECT_EQ(c.d_vocab, 10);
  EXPECT_EQ(c.d_vocab_out, 10);  // output_vocab: full
  EXPECT_EQ(c.n_ctx, 3);
  c.output_vocab = "numbers";
  c.derive({10, 4, 3});
  EXPECT_EQ(c.d_vocab_out, 4);
  // Assign and Add's: N = 59 numbers + V = 12 variables + PAD, '+', '=' in; 59 answers; T = 16.
  const auto tokens = assign_and_add::token_space(task::TaskConfig{});
  EXPECT_EQ(tokens.d_vocab, 74);
  EXPECT_EQ(tokens.n_answers, 59);
  EXPECT_EQ(tokens.n_ctx, 16);
}
