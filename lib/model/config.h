#pragma once
// Architecture (§3): 2 layers, 1 head, d_model = d_head = 128, d_mlp = 512, no biases,
// no normalisation, no layer-1 MLP, learned absolute positions, causal attention.
#include <nlohmann/json.hpp>

#include <string>

#include "task/config.h"
#include "util/yaml_json.h"

namespace cc::model {

struct ModelConfig {
  int d_model = 128;                  // stated
  int d_head = 128;                   // stated
  int n_heads = 1;                    // stated
  int d_mlp = 512;                    // stated
  std::string activation = "relu";    // unstated (TransformerLens' default would be gelu)
  std::string output_vocab = "full";  // unstated: "full" (TransformerLens' d_vocab_out default) or "numbers"
  double init_std = -1.0;             // unstated; < 0 means TransformerLens' gpt2 init: 0.8 / sqrt(d_model)
  // Derived from the task, not read from YAML:
  int d_vocab = 74;
  int d_vocab_out = 74;
  int n_ctx = task::kSeqLen;

  static ModelConfig from_yaml(ObjectReader r, const task::TaskConfig& task);
  static ModelConfig from_json(const nlohmann::json& j, const task::TaskConfig& task);
  nlohmann::json to_json() const;
  void derive(const task::TaskConfig& task);
  double effective_init_std() const;
};

}  // namespace cc::model
