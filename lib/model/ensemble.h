#pragma once
// K models of one architecture trained at once: every parameter is stacked to [K, ...] under
// its TransformerLens name, and the training path runs as batched matmuls. On a CPU this saves
// per-op overhead; on a GPU it is the main win, since one small model cannot fill the device.
// Member k computes exactly what Transformer::forward_last computes for its own weights (up to
// the summation order of bmm vs mm: tests/test_sweep_ensemble.cpp bounds how far that moves training).
#include <torch/types.h>

#include <string>
#include <utility>
#include <vector>

#include "model/transformer.h"

namespace cc::model {

class Ensemble {
 public:
  Ensemble(const ModelConfig& cfg, int64_t members);  // zero weights

  int64_t members() const { return members_; }
  void set_member(int64_t k, const Transformer& m);  // copies m's weights into slot k
  void get_member(int64_t k, Transformer& m) const;  // copies slot k's weights into m

  // tokens [K, B, T] int64 -> logits [K, B, d_vocab_out] at the last position.
  torch::Tensor forward_last(const torch::Tensor& tokens) const;

  const std::vector<std::pair<std::string, torch::Tensor>>& named_parameters() const { return params_; }
  std::vector<torch::Tensor> parameters() const;
  const torch::Tensor& param(const std::string& name) const;
  void to(const torch::Device& device);
  torch::Device device() const { return params_.front().second.device(); }
  const ModelConfig& config() const { return cfg_; }

 private:
  torch::Tensor flat_in(int layer, const char* w) const;  // [K, D, H*E]
  torch::Tensor flat_out(int layer) const;                // [K, H*E, D]

  ModelConfig cfg_;
  int64_t members_;
  std::vector<std::pair<std::string, torch::Tensor>> params_;
};

}  // namespace cc::model
