#pragma once
// The paper's transformer, parameters named and shaped exactly as TransformerLens'
// HookedTransformer state dict (docs/using.md, "Checkpoints"; `claimcheck export` adds what a
// HookedTransformer has and this model does not, for a strict load):
//   embed.W_E [d_vocab, d_model]            pos_embed.W_pos [n_ctx, d_model]
//   blocks.L.attn.W_Q/W_K/W_V [n_heads, d_model, d_head]
//   blocks.L.attn.W_O [n_heads, d_head, d_model]
//   blocks.L.mlp.W_in [d_model, d_mlp]      blocks.L.mlp.W_out [d_mlp, d_model]  (blocks with an MLP)
//   unembed.W_U [d_model, d_vocab_out]
// The paper's shape by default: 2 blocks, block 0 attention-only (the paper removes the layer-1 MLP);
// ModelConfig::n_layers and mlp_layers give others. There are no biases.
#include <torch/types.h>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/config.h"

namespace cc::model {

// Activations recorded by run_with_cache, under TransformerLens hook names:
//   hook_embed, hook_pos_embed                      [B, T, d_model]
//   blocks.L.hook_resid_pre / hook_resid_post       [B, T, d_model]
//   blocks.L.attn.hook_q / hook_k / hook_v / hook_z [B, T, n_heads, d_head]
//   blocks.L.attn.hook_attn_scores / hook_pattern   [B, n_heads, T, T] (scores masked: -inf)
//   blocks.L.hook_attn_out                          [B, T, d_model]
//   blocks.L.hook_resid_mid, blocks.L.hook_mlp_out  [B, T, d_model]  (blocks with an MLP)
//   blocks.L.mlp.hook_pre / hook_post               [B, T, d_mlp]
// A hook as an analysis reads it: at every position, or at one position only (the T axis, dim 1,
// dropped: [B, ...]; for hook_attn_scores and hook_pattern, the query's row: [B, H, T]), which is all
// most measurements need and T times smaller to keep.
struct HookRead {
  std::string hook;         // a TransformerLens name, e.g. blocks.1.hook_resid_mid
  int position = -1;        // -1: every position
  std::string key() const;  // its name in a cache: the hook, or e.g. "blocks.1.hook_resid_mid[:, 9]"
  bool operator<(const HookRead& o) const;
};

// An intervention at one hook, as TransformerLens' run_with_hooks takes it: the hook's value at every
// position ([B, T, ...], or [B, H, T, T] for the attention scores and pattern) and the batch's tokens
// [B, T] in, the value the forward carries on with out (the same shape). Edits of the scores are seen
// by the pattern (softmax of the edited scores), edits of the pattern by z, and so on downstream.
using HookEdit = std::function<torch::Tensor(const torch::Tensor& value, const torch::Tensor& tokens)>;
struct NamedEdit {
  std::string hook;  // a TransformerLens name of this model (hook_names)
  HookEdit edit;
};

class ActivationCache {
 public:
  void put(const std::string& name, torch::Tensor t) { acts_[name] = std::move(t); }
  const torch::Tensor& operator[](const std::string& name) const;  // throws cc::Error listing names
  bool contains(const std::string& name) const { return acts_.count(name) > 0; }
  std::vector<std::string> names() const;

 private:
  std::map<std::string, torch::Tensor> acts_;
};

class Transformer {
 public:
  explicit Transformer(const ModelConfig& cfg);  // zero weights; call init() or load()

  // Normal(0, init_std) for every weight, drawn on the CPU from `seed` (so the init does not
  // depend on the device), then moved to the model's device.
  void init(uint64_t seed);

  // Training path: computes only what the loss at '=' needs. tokens [B, T] int64 -> logits
  // [B, d_vocab_out] at the last position. The last block's query, its MLP and the unembedding run
  // at the last position only; the blocks before it and the last block's keys/values need every
  // position (for the paper's shape, computed from small tables: see transformer.cpp).
  torch::Tensor forward_last(const torch::Tensor& tokens) const;

  // Every position, nothing recorded: the training path of a task whose loss is at every position
  // (train/task_data.h). tokens [B, T] int64 -> logits [B, T, d_vocab_out], as run_with_cache gives.
  torch::Tensor forward(const torch::Tensor& tokens) const;

  // Analysis path: every position, every activation recorded. -> logits [B, T, d_vocab_out].
  torch::Tensor run_with_cache(const torch::Tensor& tokens, ActivationCache& cache) const;

  // Analysis path for the activations a measurement reads: records `reads` only, each under
  // HookRead::key() in its own storage, and computes only what they need: no block after the last one
  // read, no unembedding, and the last block's query side (its queries, attention row, output, MLP) only
  // at the positions read. A query-side hook read at one position is computed for that position alone
  // (its B rows), so a value depends only on its own read, never on what else is read with it. A hook
  // read at every position, and the embeddings, resid_pre, k and v at any position, are run_with_cache's
  // values bit for bit; a query-side hook read at one position is too up to float rounding (a matmul over
  // other rows can round otherwise: OpenBLAS's Haswell kernel does, for the rows of an incomplete tile).
  // cc::Error for a hook this model does not have (naming those it has) or a position outside [0, T).
  ActivationCache record(const torch::Tensor& tokens, const std::set<HookRead>& reads) const;

  // Every hook run_with_cache records for this model, in the order it computes them.
  std::vector<std::string> hook_names() const;

  // A model that shares these weights and applies `edits` in every forward it runs (forward_last,
  // forward, run_with_cache, record), each at its hook, in the order given: the plain analysis path
  // at every position, so an edit anywhere reaches every value computed after it. The weights are
  // shared, not copied: the edited model lives as long as it is used and changes nothing here.
  // cc::Error naming the hook for a hook this model does not have. Not for training (no fast path).
  std::shared_ptr<Transformer> with_edits(std::vector<NamedEdit> edits) const;
  bool edited() const { return !edits_.empty(); }

  // Parameters in TransformerLens order and names.
  const std::vector<std::pair<std::string, torch::Tensor>>& named_parameters() const { return params_; }
  std::vector<torch::Tensor> parameters() const;
  const torch::Tensor& param(const std::string& name) const;
  // Copies values in (shapes must match); throws cc::Error naming the offending tensor.
  void load(const std::map<std::string, torch::Tensor>& values);
  void to(const torch::Device& device);
  torch::Device device() const { return params_.front().second.device(); }

  // Weight accessors for circuit analysis (single head h; TransformerLens conventions:
  // x @ W_Q gives queries, z @ W_O writes to the residual stream).
  torch::Tensor W_E() const { return param("embed.W_E"); }
  torch::Tensor W_pos() const { return param("pos_embed.W_pos"); }
  torch::Tensor W_Q(int layer, int head = 0) const { return block(layer, "attn.W_Q")[head]; }  // [d_model, d_head]
  torch::Tensor W_K(int layer, int head = 0) const { return block(layer, "attn.W_K")[head]; }
  torch::Tensor W_V(int layer, int head = 0) const { return block(layer, "attn.W_V")[head]; }
  torch::Tensor W_O(int layer, int head = 0) const { return block(layer, "attn.W_O")[head]; }  // [d_head, d_model]
  // The MLP of block `layer`; by default the last block that has one (the paper's block 1).
  torch::Tensor W_in(int layer = -1) const { return block(mlp_layer(layer), "mlp.W_in"); }
  torch::Tensor W_out(int layer = -1) const { return block(mlp_layer(layer), "mlp.W_out"); }
  torch::Tensor W_U() const { return param("unembed.W_U"); }
  torch::Tensor mlp_activation(const torch::Tensor& pre) const;

  const ModelConfig& config() const { return cfg_; }

 private:
  torch::Tensor block(int layer, const std::string& name) const;
  int mlp_layer(int layer) const;  // `layer`, or the last block with an MLP for -1; cc::Error if it has none
  torch::Tensor forward_last_two_layer(const torch::Tensor& tokens) const;  // the paper's shape
  torch::Tensor forward_last_general(const torch::Tensor& tokens) const;    // any other
  struct Recorder;  // what the analysis path keeps (transformer.cpp)
  torch::Tensor run_recording(const torch::Tensor& tokens, Recorder& rec) const;
  // Logits with edits_: [B, T, V], or the last position's [B, V] (`last_only`: the last block's MLP there alone).
  torch::Tensor forward_edited(const torch::Tensor& tokens, bool last_only) const;
  torch::Tensor embed_tokens(const torch::Tensor& tokens) const;             // [B, T, d_model] residual stream
  torch::Tensor block_forward(int layer, const torch::Tensor& resid) const;  // one block at every position
  torch::Tensor flat_in(int layer, const char* w) const;                     // W_Q/W_K/W_V as [d_model, n_heads*d_head]
  torch::Tensor flat_out(int layer) const;                                   // W_O as [n_heads*d_head, d_model]

  ModelConfig cfg_;
  std::vector<std::pair<std::string, torch::Tensor>> params_;
  std::vector<NamedEdit> edits_;  // with_edits: applied in every forward
};

// The hooks a model of `cfg` records (Transformer::hook_names), for checking a name before a model is loaded.
std::vector<std::string> hook_names(const ModelConfig& cfg);

}  // namespace cc::model

namespace cc::model {

// max |a - b| over every parameter (both models must have the same config): 0 means bitwise
// identical weights. Used by the reproducibility claims and `claimcheck fixtures recreate`.
double max_abs_diff(const Transformer& a, const Transformer& b);

}  // namespace cc::model
