#pragma once
// The transformer's shape: n_layers blocks of attention (n_heads heads of d_head) and, in the blocks
// mlp_layers lists, an MLP of d_mlp; no biases, no normalisation, learned absolute positions, causal
// attention. The engine has no default shape: a run's config states every field (a paper's module
// may offer its own, e.g. papers/assign_and_add/module/task_family.h: model_config()).
// The model knows no task: what a task fixes about it (TokenSpace) is given by whoever pairs the
// two (the run's task family: train/family.h).
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "util/yaml_json.h"

namespace cc::model {

// What a task fixes about the model: its input tokens, how many of them can be answers (tokens
// 0..n_answers-1, the `output_vocab: numbers` unembedding) and the sequence length.
struct TokenSpace {
  int d_vocab = 0;
  int n_answers = 0;
  int n_ctx = 0;
};

struct ModelConfig {
  int d_model = 0;
  int d_head = 0;
  int n_heads = 0;
  int d_mlp = 0;
  std::string activation;    // relu | gelu
  std::string output_vocab;  // "full" (TransformerLens' d_vocab_out default) or "numbers"
  double init_std = -1.0;    // < 0 means TransformerLens' gpt2 init: 0.8 / sqrt(d_model)
  // Parameters initialised otherwise (`init: {embed.W_E: 1.0, blocks.0.attn.W_Q: identity}`): N(0, s²)
  // for a number s, or the identity in each head for "identity" (d_head = d_model). Empty for most
  // runs, and then not written (their hashes stay).
  std::map<std::string, nlohmann::json> init;
  // Blocks and which of them have an MLP (0-based, ascending). A config that gives neither is the
  // 2-block shape with an MLP in block 1, as sidecars written before these keys existed spell it; and
  // that shape is written without them, so those runs keep their hashes (to_json).
  int n_layers = 0;
  std::vector<int> mlp_layers;
  // Derived from the task's TokenSpace (derive), not read from YAML; 0 until then:
  int d_vocab = 0;
  int d_vocab_out = 0;
  int n_ctx = 0;

  static ModelConfig from_yaml(ObjectReader r, const TokenSpace& tokens);
  static ModelConfig from_json(const nlohmann::json& j, const TokenSpace& tokens);
  // every_field: also n_layers and mlp_layers at their defaults (for checking a key against the schema).
  nlohmann::json to_json(bool every_field = false) const;
  void derive(const TokenSpace& tokens);
  double effective_init_std() const;
  bool has_mlp(int layer) const;
  int last_mlp_layer() const;  // -1 when no block has one
  // The paper's shape (2 layers, an MLP in block 1 only): the shape the blas engine, the stacked
  // ensemble and forward_last's rearranged path are written for.
  bool is_two_layer_mlp_last() const { return n_layers == 2 && mlp_layers == std::vector<int>{1}; }
};

}  // namespace cc::model
