// Interventions (analysis/intervention.h, model::Transformer::with_edits): each op against a forward
// written out by hand here (einsum, no model code), on a tiny two-block model with two heads.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <map>
#include <string>

#include "analysis/intervention.h"
#include "analysis/subspace.h"
#include "papers/assign_and_add/module/examples.h"
#include "papers/assign_and_add/module/task_family.h"
#include "train/task_data.h"
#include "util/error.h"
#include "util/yaml_json.h"

using namespace cc;
using torch::indexing::Slice;

namespace {

// A subspace for the tests of `op: project`, registered before the registry is first read: two directions
// of the residual space, neither of unit length nor orthogonal, so the op must orthonormalise them.
torch::Tensor two_directions(int64_t dim) {
  auto d = torch::zeros({2, dim}, torch::kDouble);
  d[0][0] = 2.0;
  d[0][1] = 1.0;
  d[1][1] = 3.0;
  d[1][2] = -1.0;
  return d;
}
const bool kTestSubspace = [] {
  analysis::Subspace s;
  s.name = "test_two_directions";
  s.description = "two directions of the residual space (tests/test_intervention.cpp)";
  s.hooks = {"hook_embed", "blocks.1.hook_resid_mid"};
  s.directions = [](const train::Checkpoint& ck, analysis::ActivationStore*) {
    return two_directions(ck.model->config().d_model);
  };
  analysis::add_subspace(s, "tests/test_intervention.cpp");
  return true;
}();

// A&A's task (T = 16) with a tiny model: 2 blocks, 2 heads of 8, an MLP in block 1.
train::Checkpoint tiny_model(uint64_t seed) {
  train::Checkpoint ck;
  ck.config = assign_and_add::run_config();
  auto& m = ck.config.model;
  m.d_model = 16;
  m.d_head = 8;
  m.n_heads = 2;
  m.d_mlp = 32;
  ck.model = std::make_shared<model::Transformer>(m);
  ck.model->init(seed);
  return ck;
}

torch::Tensor set_tokens(const train::Checkpoint& ck, const std::string& set, int size, uint64_t seed) {
  return train::make_task_data(ck.config)->eval_set(set, size, seed).batch.tokens;
}

// The hand forward's edits: a function per hook name that changes the value in place.
using HandEdits = std::map<std::string, std::function<void(torch::Tensor&, const torch::Tensor& tokens)>>;

// Every position's logits [B, T, V], written out with einsum; `edits` applied where their hooks are.
torch::Tensor hand_forward(const model::Transformer& m, const torch::Tensor& tokens, const HandEdits& edits = {}) {
  torch::NoGradGuard no_grad;
  const auto& cfg = m.config();
  const int64_t T = tokens.size(1);
  auto at = [&](const std::string& hook, torch::Tensor& x) {
    auto it = edits.find(hook);
    if (it != edits.end()) it->second(x, tokens);
  };
  auto embed = m.W_E().index({tokens});  // [B, T, D]
  at("hook_embed", embed);
  auto x = embed + m.W_pos().index({Slice(0, T)}).unsqueeze(0);
  for (int layer = 0; layer < cfg.n_layers; ++layer) {
    const std::string b = "blocks." + std::to_string(layer) + ".";
    auto W = [&](const char* w) { return m.param(b + "attn." + w); };  // [H, D, E]
    auto q = torch::einsum("btd,hde->bthe", {x, W("W_Q")});
    auto k = torch::einsum("btd,hde->bthe", {x, W("W_K")});
    auto v = torch::einsum("btd,hde->bthe", {x, W("W_V")});
    auto scores = torch::einsum("bihe,bjhe->bhij", {q, k}) / std::sqrt(static_cast<double>(cfg.d_head));
    auto future = torch::ones({T, T}, torch::kBool).triu(1);
    scores = scores.masked_fill(future, -INFINITY);
    at(b + "attn.hook_attn_scores", scores);
    auto pattern = torch::softmax(scores, -1);
    at(b + "attn.hook_pattern", pattern);
    auto z = torch::einsum("bhij,bjhe->bihe", {pattern, v});
    at(b + "attn.hook_z", z);
    x = x + torch::einsum("bthe,hed->btd", {z, W("W_O")});
    if (cfg.has_mlp(layer)) {
      at(b + "hook_resid_mid", x);
      auto post = m.mlp_activation(x.matmul(m.param(b + "mlp.W_in")));
      at(b + "mlp.hook_post", post);
      x = x + post.matmul(m.param(b + "mlp.W_out"));
    }
    at(b + "hook_resid_post", x);
  }
  return x.matmul(m.W_U());
}

// `yaml` (a list of edits) as the claim loader reads it.
nlohmann::json edits_from(const std::string& yaml) {
  const YamlDoc doc = load_yaml_string("intervene: " + yaml + "\n", "edits.yaml");
  ObjectReader r(doc, "");
  return analysis::parse_interventions(r);
}

// The loader's message for `yaml`, or "no error".
std::string parse_error(const std::string& yaml) {
  try {
    edits_from(yaml);
  } catch (const Error& e) {
    return std::string(e.what());
  }
  return "no error";
}

torch::Tensor edited_logits(const train::Checkpoint& ck, const std::string& yaml, const torch::Tensor& tokens) {
  torch::NoGradGuard no_grad;
  return analysis::intervened_model(ck, edits_from(yaml), nullptr)->forward(tokens);
}

// Within 1e-6 of the largest value's size (float32 sums in another order differ in their last bits).
void expect_close(const torch::Tensor& a, const torch::Tensor& b) {
  ASSERT_EQ(a.sizes(), b.sizes());
  const double scale = std::max(1.0, b.abs().max().item<double>());
  EXPECT_LT((a - b).abs().max().item<double>(), 1e-6 * scale) << "largest |value| " << scale;
}

}  // namespace

TEST(Intervention, ZeroAblationOfOneHeadAtOnePosition) {
  const auto ck = tiny_model(1);
  const auto tokens = set_tokens(ck, "test_1", 20, 3);
  const auto got = edited_logits(ck, "[{hook: blocks.0.attn.hook_z, op: zero, positions: [2], heads: [1]}]", tokens);
  const auto want =
      hand_forward(*ck.model, tokens, {{"blocks.0.attn.hook_z", [](torch::Tensor& z, const torch::Tensor&) {
                                          z.index_put_({Slice(), 2, 1}, 0.0);
                                        }}});
  expect_close(got, want);
  EXPECT_GT((got - hand_forward(*ck.model, tokens)).abs().max().item<double>(), 1e-3);  // the edit did something
}

TEST(Intervention, AnEditThatChangesNothingGivesTheCleanLogits) {
  const auto ck = tiny_model(2);
  const auto tokens = set_tokens(ck, "test_2", 20, 3);
  torch::NoGradGuard no_grad;
  model::ActivationCache cache;
  const auto clean = ck.model->run_with_cache(tokens, cache);
  const auto same = ck.model->with_edits(
      {{"blocks.1.attn.hook_pattern", [](const torch::Tensor& v, const torch::Tensor&) { return v; }}});
  EXPECT_TRUE(torch::equal(same->forward(tokens), clean));  // the same operations, so the same bits
  expect_close(clean, hand_forward(*ck.model, tokens));
}

TEST(Intervention, TheLastPositionsLogitsAreEveryPositionsLast) {
  // forward_last runs the last block's MLP at the last position alone unless an edit is in that MLP.
  const auto ck = tiny_model(9);
  const auto tokens = set_tokens(ck, "test_2", 20, 3);
  torch::NoGradGuard no_grad;
  for (const std::string yaml : {"[{hook: blocks.0.attn.hook_pattern, op: pattern, target: uniform, positions: [3]}]",
                                 "[{hook: blocks.1.mlp.hook_post, op: zero, positions: [-1]}]"}) {
    const auto m = analysis::intervened_model(ck, edits_from(yaml), nullptr);
    expect_close(m->forward_last(tokens), m->forward(tokens).select(1, -1));
  }
  // The MLP edit reaches the last position's logits.
  const auto zeroed = analysis::intervened_model(
      ck, edits_from("[{hook: blocks.1.mlp.hook_post, op: zero, positions: [-1]}]"), nullptr);
  expect_close(zeroed->forward_last(tokens), hand_forward(*ck.model, tokens,
                                                          {{"blocks.1.mlp.hook_post",
                                                            [](torch::Tensor& x, const torch::Tensor&) {
                                                              x.index_put_({Slice(), -1}, 0.0);
                                                            }}})
                                                 .select(1, -1));
}

TEST(Intervention, UniformAndPreviousPatterns) {
  const auto ck = tiny_model(3);
  const auto tokens = set_tokens(ck, "test_1", 20, 3);
  const int64_t T = tokens.size(1);
  expect_close(
      edited_logits(ck,
                    "[{hook: blocks.1.attn.hook_pattern, op: pattern, target: uniform, positions: [-1], heads: [0]}]",
                    tokens),
      hand_forward(*ck.model, tokens, {{"blocks.1.attn.hook_pattern", [T](torch::Tensor& p, const torch::Tensor&) {
                                          p.index_put_({Slice(), 0, T - 1}, 1.0 / static_cast<double>(T));
                                        }}}));
  expect_close(
      edited_logits(ck, "[{hook: blocks.0.attn.hook_pattern, op: pattern, target: previous}]", tokens),
      hand_forward(*ck.model, tokens, {{"blocks.0.attn.hook_pattern", [T](torch::Tensor& p, const torch::Tensor&) {
                                          p.zero_();
                                          for (int64_t i = 0; i < T; ++i)
                                            p.index_put_({Slice(), Slice(), i, std::max<int64_t>(i - 1, 0)}, 1.0);
                                        }}}));
}

TEST(Intervention, KnockoutRemovesKeysFromAQuerysSoftmax) {
  const auto ck = tiny_model(8);
  const auto tokens = set_tokens(ck, "test_1", 20, 3);
  const int64_t T = tokens.size(1);
  expect_close(
      edited_logits(
          ck, "[{hook: blocks.1.attn.hook_attn_scores, op: knockout, positions: [-1], heads: [1], keys: [0, 1, -2]}]",
          tokens),
      hand_forward(*ck.model, tokens, {{"blocks.1.attn.hook_attn_scores", [T](torch::Tensor& s, const torch::Tensor&) {
                                          for (int64_t k : {int64_t{0}, int64_t{1}, T - 2})
                                            s.index_put_({Slice(), 1, T - 1, k}, -INFINITY);
                                        }}}));
  // Position 0 sees only itself: knocking key 0 out leaves it nothing to attend to.
  EXPECT_THROW(edited_logits(ck, "[{hook: blocks.0.attn.hook_attn_scores, op: knockout, keys: [0]}]", tokens), Error);
}

TEST(Intervention, MeanAblationUsesTheMeanOverTheNamedSet) {
  const auto ck = tiny_model(4);
  const auto tokens = set_tokens(ck, "test_2", 20, 3);
  // The clean resid_mid of block 1 on test_1 (size 50, eval_seed 9), by hand, and its mean per position.
  torch::Tensor mean;
  hand_forward(*ck.model, set_tokens(ck, "test_1", 50, 9),
               {{"blocks.1.hook_resid_mid", [&](torch::Tensor& x, const torch::Tensor&) { mean = x.mean(0); }}});
  const auto got = edited_logits(
      ck, "[{hook: blocks.1.hook_resid_mid, op: mean, positions: [-1], set: test_1, size: 50, eval_seed: 9}]", tokens);
  expect_close(
      got, hand_forward(*ck.model, tokens, {{"blocks.1.hook_resid_mid", [&](torch::Tensor& x, const torch::Tensor&) {
                                               x.index_put_({Slice(), -1}, mean[-1]);
                                             }}}));
}

TEST(Intervention, ResampleTakesAWholeSequenceOfTheSetChosenByTheSequenceAlone) {
  const auto ck = tiny_model(5);
  const auto tokens = set_tokens(ck, "test_2", 30, 3);
  const std::string hook = "blocks.0.hook_resid_post";
  const std::string yaml = "[{hook: " + hook + ", op: resample, set: test_1, size: 40, eval_seed: 2, seed: 7}]";
  torch::NoGradGuard no_grad;
  const auto edited = analysis::intervened_model(ck, edits_from(yaml), nullptr);
  // Which pool sequence replaced each: the recorded (edited) value is one of the pool's rows, whole.
  torch::Tensor pool;
  hand_forward(*ck.model, set_tokens(ck, "test_1", 40, 2),
               {{hook, [&](torch::Tensor& x, const torch::Tensor&) { pool = x.clone(); }}});
  const auto recorded = edited->record(tokens, {model::HookRead{hook, -1}})[hook];
  std::vector<int64_t> chosen;
  for (int64_t b = 0; b < tokens.size(0); ++b) {
    const auto dist = (pool - recorded[b].unsqueeze(0)).abs().flatten(1).amax(1);  // [40]
    ASSERT_LT(dist.min().item<double>(), 1e-5) << "row " << b << " is no sequence of the pool";
    chosen.push_back(dist.argmin().item<int64_t>());
  }
  expect_close(edited->forward(tokens),
               hand_forward(*ck.model, tokens, {{hook, [&](torch::Tensor& x, const torch::Tensor&) {
                                                   x.copy_(pool.index_select(0, torch::tensor(chosen)));
                                                 }}}));
  // A sequence's replacement does not depend on its batch: the rows measured apart get the same logits
  // (to rounding: a matmul over fewer rows may sum in another order; another replacement differs by far more).
  const auto apart = torch::cat({edited->forward(tokens.slice(0, 0, 7)), edited->forward(tokens.slice(0, 7))});
  expect_close(apart, edited->forward(tokens));
  // Another seed draws other replacements.
  const auto other =
      edited_logits(ck, "[{hook: " + hook + ", op: resample, set: test_1, size: 40, eval_seed: 2, seed: 8}]", tokens);
  EXPECT_FALSE(torch::equal(other, edited->forward(tokens)));
}

TEST(Intervention, PatchingGivesEachCorruptedSequenceItsCleanPartnersValue) {
  const auto ck = tiny_model(6);
  const auto corrupted = set_tokens(ck, "test_1", 25, 4), clean = set_tokens(ck, "test_2", 25, 4);
  // The last position's residual before block 1's MLP decides its logits: patched from the clean
  // sequence, the corrupted one's last logits are the clean one's.
  const auto patched = edited_logits(ck,
                                     "[{hook: blocks.1.hook_resid_mid, op: patch, positions: [-1], set: test_2, into: "
                                     "test_1, size: 25, eval_seed: 4}]",
                                     corrupted);
  const auto clean_logits = hand_forward(*ck.model, clean);
  expect_close(patched.select(1, -1), clean_logits.select(1, -1));
  // Earlier positions keep the corrupted run's values.
  expect_close(patched.slice(1, 0, -1), hand_forward(*ck.model, corrupted).slice(1, 0, -1));
  // A sequence that is not one of `into`'s cannot be given a partner.
  EXPECT_THROW(
      edited_logits(ck,
                    "[{hook: blocks.1.hook_resid_mid, op: patch, set: test_2, into: test_1, size: 25, eval_seed: 4}]",
                    set_tokens(ck, "test_0", 5, 99)),
      Error);
}

TEST(Intervention, NamesWhatTheModelDoesNotHaveBeforeAnythingRuns) {
  const auto ck = tiny_model(7);
  auto message = [&](const std::string& yaml) {
    try {
      analysis::check_interventions(edits_from(yaml), ck.model->config());
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(
      message("[{hook: blocks.0.mlp.hook_post, op: zero}]").find("the model has no hook 'blocks.0.mlp.hook_post'"),
      std::string::npos);
  EXPECT_NE(message("[{hook: blocks.2.attn.hook_z, op: zero}]").find("no hook"), std::string::npos);
  EXPECT_NE(message("[{hook: blocks.0.attn.hook_z, op: zero, heads: [2]}]").find("the model has no head 2 (it has 2)"),
            std::string::npos);
  EXPECT_EQ(message("[{hook: blocks.0.attn.hook_z, op: zero, heads: [1]}]"), "no error");
  // A position is checked against the sequences when they run.
  const auto tokens = set_tokens(ck, "test_1", 3, 1);
  EXPECT_THROW(edited_logits(ck, "[{hook: blocks.0.hook_resid_post, op: zero, positions: [16]}]", tokens), Error);
  EXPECT_THROW(edited_logits(ck, "[{hook: blocks.0.hook_resid_post, op: zero, positions: [-17]}]", tokens), Error);
}

TEST(Intervention, ARuleOfTheSchemaBrokenIsAnErrorWithItsLine) {
  const auto message = parse_error;
  EXPECT_NE(message("[{hook: blocks.0.attn.hook_z, op: shuffle}]").find("edits.yaml:1"), std::string::npos);
  EXPECT_NE(message("[{hook: blocks.0.hook_resid_post, op: zero, heads: [0]}]").find("has no head axis"),
            std::string::npos);
  EXPECT_NE(message("[{hook: blocks.0.attn.hook_z, op: pattern, target: uniform}]").find("hook_pattern"),
            std::string::npos);
  EXPECT_NE(message("[{hook: blocks.0.attn.hook_pattern, op: pattern}]").find("target"), std::string::npos);
  EXPECT_NE(message("[{hook: blocks.0.attn.hook_z, op: mean}]").find("set"), std::string::npos);
  EXPECT_NE(message("[{hook: blocks.0.attn.hook_z, op: zero, seed: 3}]").find("unknown field"), std::string::npos);
  EXPECT_NE(message("[{hook: blocks.0.attn.hook_pattern, op: knockout, keys: [0]}]").find("hook_attn_scores"),
            std::string::npos);
  EXPECT_NE(message("[{hook: blocks.0.attn.hook_attn_scores, op: knockout}]").find("keys"), std::string::npos);
  EXPECT_NE(message("[]").find("one or more edits"), std::string::npos);
  EXPECT_NE(message("{hook: blocks.0.attn.hook_z}").find("one or more edits"), std::string::npos);
}

TEST(Intervention, ProjectionOntoAndOffANamedSubspace) {
  const auto ck = tiny_model(10);
  const auto tokens = set_tokens(ck, "test_1", 20, 3);
  // The basis by hand: Gram-Schmidt of the two directions.
  const auto d = two_directions(ck.model->config().d_model).to(torch::kFloat);
  const auto q1 = d[0] / d[0].norm();
  auto r2 = d[1] - (d[1] * q1).sum() * q1;
  const auto q2 = r2 / r2.norm();
  auto part = [&](const torch::Tensor& x) { return x.matmul(q1).unsqueeze(-1) * q1 + x.matmul(q2).unsqueeze(-1) * q2; };
  expect_close(edited_logits(ck,
                             "[{hook: hook_embed, op: project, subspace: test_two_directions, keep: complement, "
                             "positions: [0, 5]}]",
                             tokens),
               hand_forward(*ck.model, tokens, {{"hook_embed", [&](torch::Tensor& e, const torch::Tensor&) {
                                                   for (int64_t p : {0, 5}) {
                                                     auto x = e.index({Slice(), p});
                                                     e.index_put_({Slice(), p}, x - part(x));
                                                   }
                                                 }}}));
  expect_close(
      edited_logits(ck,
                    "[{hook: blocks.1.hook_resid_mid, op: project, subspace: test_two_directions, "
                    "keep: subspace}]",
                    tokens),
      hand_forward(*ck.model, tokens,
                   {{"blocks.1.hook_resid_mid", [&](torch::Tensor& x, const torch::Tensor&) { x = part(x); }}}));
}

TEST(Intervention, ARandomSubspaceHasTheNamedOnesRankAndDependsOnItsSeedAlone) {
  const auto a = analysis::random_basis(3, 16, 7), b = analysis::random_basis(3, 16, 7);
  ASSERT_EQ(a.sizes(), (std::vector<int64_t>{3, 16}));
  EXPECT_TRUE(torch::equal(a, b));
  EXPECT_FALSE(torch::equal(a, analysis::random_basis(3, 16, 8)));
  EXPECT_LT((a.matmul(a.t()) - torch::eye(3, torch::kDouble)).abs().max().item<double>(), 1e-12);
  EXPECT_EQ(analysis::random_basis(0, 16, 7).size(0), 0);
  // In a claim: a random subspace of the named one's rank (2 here) and the claim's seed.
  const auto ck = tiny_model(11);
  const auto tokens = set_tokens(ck, "test_1", 20, 3);
  const auto q = analysis::random_basis(2, ck.model->config().d_model, 4).to(torch::kFloat);
  expect_close(
      edited_logits(ck,
                    "[{hook: hook_embed, op: project, subspace: test_two_directions, keep: subspace, "
                    "random: true, seed: 4}]",
                    tokens),
      hand_forward(*ck.model, tokens,
                   {{"hook_embed", [&](torch::Tensor& e, const torch::Tensor&) { e = e.matmul(q.t()).matmul(q); }}}));
}

TEST(Intervention, AProjectionNamesItsSubspacesHooksAndFamilies) {
  const auto message = parse_error;
  EXPECT_NE(message("[{hook: hook_embed, op: project, subspace: test_two_direction, keep: complement}]")
                .find("test_two_directions"),
            std::string::npos);  // the nearest name
  EXPECT_NE(message("[{hook: blocks.0.hook_resid_post, op: project, subspace: test_two_directions, keep: complement}]")
                .find("lies along the last axis of hook_embed, blocks.1.hook_resid_mid"),
            std::string::npos);
  EXPECT_NE(message("[{hook: hook_embed, op: project, subspace: test_two_directions}]").find("keep"),
            std::string::npos);
  EXPECT_NE(message("[{hook: hook_embed, op: project, subspace: test_two_directions, keep: complement, seed: 2}]")
                .find("unknown field"),
            std::string::npos);  // a seed without random: true
  // The grokking paper's subspace reads that paper's runs only.
  const auto ck = tiny_model(12);
  try {
    analysis::intervened_model(
        ck, edits_from("[{hook: hook_embed, op: project, subspace: key_frequencies, keep: complement}]"), nullptr);
    ADD_FAILURE() << "an Assign and Add checkpoint was projected on the grokking paper's subspace";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("reads runs of 'modular_addition'"), std::string::npos) << e.what();
  }
}
