#include "model/param_layout.h"

#include "util/error.h"

namespace cc::model {

ParamLayout::ParamLayout(const ModelConfig& cfg) {
  const int64_t D = cfg.d_model, H = cfg.n_heads, E = cfg.d_head, M = cfg.d_mlp;
  auto add = [&](const std::string& name, std::vector<int64_t> shape) {
    int64_t size = 1;
    for (int64_t s : shape) size *= s;
    entries.push_back({name, std::move(shape), total, size});
    total += size;
  };
  // TransformerLens' state-dict order, block by block; a block has an MLP only where the config says
  // (the paper's: block 1 only). No biases.
  add("embed.W_E", {cfg.d_vocab, D});
  add("pos_embed.W_pos", {cfg.n_ctx, D});
  for (int l = 0; l < cfg.n_layers; ++l) {
    const std::string b = "blocks." + std::to_string(l) + ".";
    add(b + "attn.W_Q", {H, D, E});
    add(b + "attn.W_K", {H, D, E});
    add(b + "attn.W_V", {H, D, E});
    add(b + "attn.W_O", {H, E, D});
    if (cfg.has_mlp(l)) {
      add(b + "mlp.W_in", {D, M});
      add(b + "mlp.W_out", {M, D});
    }
  }
  add("unembed.W_U", {D, cfg.d_vocab_out});
}

const ParamLayout::Entry& ParamLayout::at(const std::string& name) const {
  for (const auto& e : entries)
    if (e.name == name) return e;
  throw Error("parameter layout has no tensor '" + name + "'");
}

}  // namespace cc::model
