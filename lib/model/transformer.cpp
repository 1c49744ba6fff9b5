#include "model/transformer.h"

#include <torch/torch.h>

#include <cmath>

#include "util/error.h"

namespace cc::model {

const torch::Tensor& ActivationCache::operator[](const std::string& name) const {
  auto it = acts_.find(name);
  if (it == acts_.end()) {
    std::string known;
    for (const auto& kv : acts_) known += (known.empty() ? "" : ", ") + kv.first;
    throw Error("activation '" + name + "' is not in the cache; recorded: " + known);
  }
  return it->second;
}

std::vector<std::string> ActivationCache::names() const {
  std::vector<std::string> out;
  for (const auto& kv : acts_) out.push_back(kv.first);
  return out;
}

Transformer::Transformer(const ModelConfig& cfg) : cfg_(cfg) {
  const int64_t D = cfg.d_model, H = cfg.n_heads, E = cfg.d_head, M = cfg.d_mlp;
  auto add = [&](const std::string& name, std::vector<int64_t> shape) {
    params_.emplace_back(name, torch::zeros(shape, torch::kFloat32).set_requires_grad(true));
  };
  add("embed.W_E", {cfg.d_vocab, D});
  add("pos_embed.W_pos", {cfg.n_ctx, D});
  for (int l = 0; l < kLayers; ++l) {
    const std::string b = "blocks." + std::to_string(l) + ".attn.";
    add(b + "W_Q", {H, D, E});
    add(b + "W_K", {H, D, E});
    add(b + "W_V", {H, D, E});
    add(b + "W_O", {H, E, D});
  }
  add("blocks.1.mlp.W_in", {D, M});
  add("blocks.1.mlp.W_out", {M, D});
  add("unembed.W_U", {D, cfg.d_vocab_out});
}

void Transformer::init(uint64_t seed) {
  torch::NoGradGuard no_grad;
  auto gen = at::detail::createCPUGenerator(seed);
  const double std = cfg_.effective_init_std();
  for (auto& kv : params_) {
    torch::Tensor w = torch::randn(kv.second.sizes(), gen, torch::kFloat32) * std;
    kv.second.copy_(w.to(kv.second.device()));
  }
}

std::vector<torch::Tensor> Transformer::parameters() const {
  std::vector<torch::Tensor> out;
  for (const auto& kv : params_) out.push_back(kv.second);
  return out;
}

const torch::Tensor& Transformer::param(const std::string& name) const {
  for (const auto& kv : params_)
    if (kv.first == name) return kv.second;
  throw Error("model has no parameter '" + name + "'");
}

torch::Tensor Transformer::block(int layer, const std::string& name) const {
  return param("blocks." + std::to_string(layer) + "." + name);
}

void Transformer::load(const std::map<std::string, torch::Tensor>& values) {
  torch::NoGradGuard no_grad;
  for (auto& kv : params_) {
    auto it = values.find(kv.first);
    if (it == values.end()) throw Error("checkpoint lacks tensor '" + kv.first + "'");
    if (it->second.sizes() != kv.second.sizes()) {
      std::ostringstream msg;
      msg << "tensor '" << kv.first << "' has shape " << it->second.sizes() << ", the model config needs "
          << kv.second.sizes();
      throw Error(msg.str());
    }
    kv.second.copy_(it->second);
  }
  for (const auto& kv : values) param(kv.first);  // an unexpected tensor is an error too
}

void Transformer::to(const torch::Device& device) {
  torch::NoGradGuard no_grad;
  for (auto& kv : params_) kv.second = kv.second.detach().to(device).set_requires_grad(true);
}

torch::Tensor Transformer::mlp_activation(const torch::Tensor& pre) const {
  return cfg_.activation == "gelu" ? torch::gelu(pre) : torch::relu(pre);
}

// x [B, T, D] -> attention output [B, Tq, D], Tq = T or 1 (the last position only).
torch::Tensor Transformer::attention(const torch::Tensor& x, int layer, bool last_query_only,
                                     ActivationCache* cache) const {
  const int64_t B = x.size(0), T = x.size(1), D = cfg_.d_model, H = cfg_.n_heads, E = cfg_.d_head;
  const std::string prefix = "blocks." + std::to_string(layer) + ".attn.";
  // [H, D, E] -> [D, H*E] so one matmul serves all heads.
  auto flat_in = [&](const char* w) { return block(layer, std::string("attn.") + w).permute({1, 0, 2}).reshape({D, H * E}); };

  torch::Tensor q, k, v;  // [B, T(q), H, E]
  if (last_query_only) {
    // chunk, not select: its backward is one cat, where select's zero-fills a full copy each.
    auto kv = x.matmul(torch::cat({flat_in("W_K"), flat_in("W_V")}, 1)).chunk(2, -1);
    k = kv[0].view({B, T, H, E});
    v = kv[1].view({B, T, H, E});
    q = x.select(1, T - 1).matmul(flat_in("W_Q")).view({B, 1, H, E});
  } else {
    auto qkv = x.matmul(torch::cat({flat_in("W_Q"), flat_in("W_K"), flat_in("W_V")}, 1)).chunk(3, -1);
    q = qkv[0].view({B, T, H, E});
    k = qkv[1].view({B, T, H, E});
    v = qkv[2].view({B, T, H, E});
  }
  const double scale = 1.0 / std::sqrt(static_cast<double>(E));
  torch::Tensor scores, pattern, z;  // scores, pattern [B, H, Tq, T]; z [B, Tq, H, E]
  if (last_query_only) {
    // One query per sequence: a broadcast multiply-and-sum. On CPU, bmm over B tiny
    // matrices costs far more in per-matrix overhead than this does in arithmetic.
    scores = (k * q).sum(-1).permute({0, 2, 1}).unsqueeze(2) * scale;  // no mask: '=' sees all
    pattern = torch::softmax(scores, -1);
    z = (pattern.squeeze(2).permute({0, 2, 1}).unsqueeze(-1) * v).sum(1).unsqueeze(1);
  } else {
    scores = q.transpose(1, 2).matmul(k.permute({0, 2, 3, 1})) * scale;
    auto future = torch::ones({T, T}, torch::TensorOptions().dtype(torch::kBool).device(x.device())).triu(1);
    scores = scores.masked_fill(future, -std::numeric_limits<float>::infinity());  // causal
    pattern = torch::softmax(scores, -1);
    z = pattern.matmul(v.transpose(1, 2)).transpose(1, 2);
  }
  const int64_t Tq = z.size(1);
  auto out = z.reshape({B, Tq, H * E}).matmul(block(layer, "attn.W_O").reshape({H * E, D}));  // [B, Tq, D]
  if (cache) {
    cache->put(prefix + "hook_q", q);
    cache->put(prefix + "hook_k", k);
    cache->put(prefix + "hook_v", v);
    cache->put(prefix + "hook_attn_scores", scores);
    cache->put(prefix + "hook_pattern", pattern);
    cache->put(prefix + "hook_z", z);
  }
  return out;
}

torch::Tensor Transformer::forward_impl(const torch::Tensor& tokens, bool last_only, ActivationCache* cache) const {
  const int64_t B = tokens.size(0), T = tokens.size(1);
  if (T > cfg_.n_ctx) throw Error("sequence length " + std::to_string(T) + " exceeds n_ctx");
  auto ids = tokens.to(device(), torch::kLong);
  auto embed = W_E().index_select(0, ids.reshape({-1})).view({B, T, cfg_.d_model});  // [B, T, D]
  auto pos = W_pos().slice(0, 0, T).unsqueeze(0).expand({B, T, cfg_.d_model});        // [B, T, D]
  auto resid0 = embed + pos;
  auto attn0 = attention(resid0, 0, false, cache);
  auto resid1 = resid0 + attn0;  // block 0 has no MLP: resid_post = resid_pre + attn_out
  auto attn1 = attention(resid1, 1, last_only, cache);
  auto mid = last_only ? resid1.select(1, T - 1) + attn1.squeeze(1) : resid1 + attn1;  // [B, (T,) D]
  auto pre = mid.matmul(W_in());
  auto post = mlp_activation(pre);
  auto mlp_out = post.matmul(W_out());
  auto resid_post = mid + mlp_out;
  auto logits = resid_post.matmul(W_U());
  if (cache) {
    cache->put("hook_embed", embed);
    cache->put("hook_pos_embed", pos);
    cache->put("blocks.0.hook_resid_pre", resid0);
    cache->put("blocks.0.hook_attn_out", attn0);
    cache->put("blocks.0.hook_resid_post", resid1);
    cache->put("blocks.1.hook_resid_pre", resid1);
    cache->put("blocks.1.hook_attn_out", attn1);
    cache->put("blocks.1.hook_resid_mid", mid);
    cache->put("blocks.1.mlp.hook_pre", pre);
    cache->put("blocks.1.mlp.hook_post", post);
    cache->put("blocks.1.hook_mlp_out", mlp_out);
    cache->put("blocks.1.hook_resid_post", resid_post);
  }
  return logits;
}

torch::Tensor Transformer::forward_last(const torch::Tensor& tokens) const { return forward_impl(tokens, true, nullptr); }

torch::Tensor Transformer::run_with_cache(const torch::Tensor& tokens, ActivationCache& cache) const {
  return forward_impl(tokens, false, &cache);
}

}  // namespace cc::model
